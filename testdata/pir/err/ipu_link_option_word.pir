target mk2(ipus = 2, ipuLinkTopology = ring, ipuLinkConfiguration = 2)

// Poplar's IPU-Link options as target keys that take a word.
target mk2(ipus = 32, tiles_per_ipu = 2, ipuLinkConfiguration = slidingWindow, ipuLinkTopology = torus, syncConfiguration = ipuAndAll)
var x: float[64]
map x -> linear

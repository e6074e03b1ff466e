// barleyTwist links carry twice fixedWindow's bandwidth between
// neighbours (docs/scale-out.md, "IPU-Links"): the 4 KiB copy from IPU 0
// to IPU 1 of ipu_link_exchange, here from IPU 0 to IPU 1 and to IPU 2,
// its neighbours on the rung and one rung up, on a torus.
target mk2(ipus = 4, tiles_per_ipu = 4, ipuLinkConfiguration = barleyTwist, ipuLinkTopology = torus)
var a: float[1024] @ tile 0 = 1.5
var b: float[1024] @ tile 4
var c: float[1024] @ tile 8
program main {
  copy a -> b
  copy a -> c
  print "c" c[0:4]
}

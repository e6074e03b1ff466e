// Exchange between IPUs costs IPU-Link time (docs/cost-model.md): the same
// 4 KiB copy within one IPU, then from IPU 0 to IPU 1.
target mk2(ipus = 2, tiles_per_ipu = 4)
var a: float[1024] @ tile 0 = 1.5
var b: float[1024] @ tile 1
var c: float[1024] @ tile 4
program main {
  copy a -> b
  copy a -> c
  print "c" c[0:4]
}

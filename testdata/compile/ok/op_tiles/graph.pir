// Operations placed on a tile set of their own (`tiles a..b { … }`, what a
// virtual graph of the host API gives its operations): two IPUs of four
// tiles, the operands on IPU 0 and the work on IPU 1. Every tensor the
// operations make and every vertex they add is on tiles 4 to 7
// (mapping.txt); the operands come over the IPU-Links.
target mk2(ipus = 2, tiles_per_ipu = 4)
var a: float[8, 6] @ tiles 0..4
var b: float[6, 5] @ tile 3
program main {
  fill a 0.5
  fill b 2.0
  tiles 4..8 {
    c = matmul(a, b)
    y = relu(c * 2.0 - 1.0)
    r = reduce(y, add, dims = [1])
    tiles 6..8 {
      s = a + a
    }
  }
  print "r" r
  print "s" s
}

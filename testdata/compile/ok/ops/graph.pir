// Library operations: the matmul planner's choice (ops.txt), an elementwise
// output mapped like its first operand, a reduction next to its rows.
target mk2(tiles_per_ipu = 16)
var a: float[8, 12] @ linear
var b: float[12, 6] @ tiles 4..8
var x: float[4, 8] @ tiles 0..4
program main {
  c = matmul(a, b)
  y = relu(x * 2.0 - 1.0)
  r = reduce(y, add, dims = [1])
  print "c" c
  print "r" r
}

// Products with an empty dimension: no columns (the planner divided by
// the column groups of an empty block and panicked; found by the PIR
// fuzzer), no rows, and an empty k, whose result is all zeros.
target mk2(tiles_per_ipu = 16)
var a: float[6, 12] @ linear = 1.0
var b: float[12, 0] @ tiles 4..8
var r: float[0, 3] @ linear
var s: float[3, 2] @ linear = 2.0
var u: float[2, 0] @ linear
var v: float[0, 3] @ linear
program main {
  c = matmul(a, b)
  d = matmul(r, s)
  e = matmul(u, v)
  print "no columns" c
  print "no rows" d
  print "empty k" e
}

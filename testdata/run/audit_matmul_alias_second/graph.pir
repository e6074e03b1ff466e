// Audit 2026-11 (matmul_inplace_alias): b = matmul(a, b) on one tile; the second row was {85,98}, numpy gives {43,50}.
target mk2(tiles_per_ipu = 1)
var a: float[2, 2] = [[1.0, 2.0], [3.0, 4.0]]
var b: float[2, 2] = [[5.0, 6.0], [7.0, 8.0]]
map a -> tile 0
map b -> tile 0
program main {
  b = matmul(a, b)
  print "b" b
}

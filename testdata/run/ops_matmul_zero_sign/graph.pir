// matmul starts every sum from +0, as a plain loop `acc = 0; acc = acc +
// a[r][q] * b[q][j]` does: products that are all -0 (0 times a negative)
// add up to +0, so 1 / c is +inf everywhere. k = 6 and k = 3 cover the
// vertex's single pass from zero (fewer than eight terms); k = 9 its first
// pass of four terms from zero and a last pass of five; 5 rows and 7
// columns its single rows and columns outside its four-wide loop.
target mk2(tiles_per_ipu = 4)
const a6: float[5, 6] @ linear = 0.0
const b6: float[6, 7] @ linear = -1.5
const a3: float[5, 3] @ linear = 0.0
const b3: float[3, 7] @ linear = -2.0
const a9: float[5, 9] @ linear = 0.0
const b9: float[9, 7] @ linear = -0.5
program main {
  c6 = matmul(a6, b6)
  r6 = 1.0 / c6
  m6 = reduce(r6, min, dims = [0, 1])
  print "1 / matmul(a6, b6), smallest" m6
  c3 = matmul(a3, b3)
  r3 = 1.0 / c3
  m3 = reduce(r3, min, dims = [0, 1])
  print "1 / matmul(a3, b3), smallest" m3
  c9 = matmul(a9, b9)
  r9 = 1.0 / c9
  m9 = reduce(r9, min, dims = [0, 1])
  print "1 / matmul(a9, b9), smallest" m9
}

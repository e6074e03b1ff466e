// The runtime copies the exchange into a library compute set tile by tile,
// each tile's data just before its vertices run, where the compiler found
// that no vertex of the set writes what a transfer reads (`--dump program`
// says "exchange in, tile by tile"). The matmul's two compute sets and the
// transposed sum exchange across the four tiles; both devices must print
// numpy's values: p = m @ m, s = p + p.T.
target mk2(tiles_per_ipu = 4)
var m: float[4, 4] @ linear = [[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12], [13, 14, 15, 16]]
program main {
  p = matmul(m, m)
  print "p = m m" p
  s = p + transpose(p)
  print "p + p^T" s
}

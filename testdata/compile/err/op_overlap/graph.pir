// An operation that writes the same elements twice. (An output that
// overlaps an operand is no error: the operand is read first, see
// testdata/run/ops_alias.)
target mk2(tiles_per_ipu = 4)
var a: float[6] @ linear = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
var b: float[3] @ tile 0
var m: float[2, 2] @ tile 0
program main {
  broadcast(b, 2) = 1.0
  broadcast(a[0:2], 2) = matmul(m, m)
}

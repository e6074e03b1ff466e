// Audit 2026-11 (dynamic_slice_dst_alias): the same on target cpu (one tile).
target cpu
var t: float[4, 2] = [[1.0,2.0],[3.0,4.0],[5.0,6.0],[7.0,8.0]]
const off: int[1] @ tile 0 = [0]
map t -> tile 0
program main {
  t[1:3] = dynamic_slice(t, off, dims = [0], sizes = [2])
  print "t" t
}

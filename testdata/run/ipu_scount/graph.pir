// The tile's cycle counter on sim (issue 25): `__builtin_ipu_get_scount_l`
// reads the run's modelled cycles when the compute set began, plus the
// cycles the vertex's worker context has used in it (earlier vertices on
// the same worker included), six per counted instruction on mk2's six
// workers. Tile 0's two vertices go to two workers, so both start at the
// compute set's first cycle; the second compute set starts later. On cpu
// (ipu_scount_cpu) the counter reads 0.
target mk2(tiles_per_ipu = 2)
codelets "scount_codelets.cpp"
var v: float[3, 8]
var t: uint[4, 3]
map v[0] -> tile 0
map v[1] -> tile 0
map v[2] -> tile 1
map t[0:2] -> tile 0
map t[2:4] -> tile 1
compute_set first {
  vertex Timed @ tile 0 { v = v[0], t = t[0] }
  vertex Timed @ tile 0 { v = v[1], t = t[1] }
  vertex Timed @ tile 1 { v = v[2], t = t[2] }
}
compute_set second { vertex Timed @ tile 1 { v = v[2], t = t[3] } }
program main {
  execute first
  execute second
  print "t" t
}

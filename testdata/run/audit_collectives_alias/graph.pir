// Issue 26's re-audit of the collectives: each writes a region that overlaps
// its own input (shifted, gathered over the source, reduce-scattered into
// the input, broadcast shifted, all-to-all in place and into a reversed
// view); every replica reads the whole input before any output is written.
target mk2(tiles_per_ipu = 4, replication_factor = 3)
const r: uint = replication_index
map r -> tile 0
var x: float[6] @ linear
var y: float[12] @ linear
var z: float[6] @ linear
var q: float[3, 2] @ linear
program main {
  x = cast<float>(r) * 10.0 + 1.0
  x[1:6] = all_reduce(x[0:5], add)
  print "shifted_ar" x
  x = cast<float>(r) * 10.0 + 1.0
  y[0:6] = x
  reshape(y[3:12], [3, 3]) = all_gather(y[0:3])
  print "gather_overlap" y
  z = cast<float>(r) + 1.0
  z[0:2] = reduce_scatter(z, add)
  print "rs_into_input" z
  z = cast<float>(r) + 1.0
  z[1:6] = replica_broadcast(z[0:5], root = 2)
  print "bcast_shift" z
  q = cast<float>(r) * 10.0 + 1.0
  q = all_to_all(q)
  print "a2a_inplace" q
  q = cast<float>(r) * 10.0 + 1.0
  reverse(q) = all_to_all(q)
  print "a2a_rev" q
  x = cast<float>(r) * 10.0 + 1.0
  reverse(x) = all_reduce(x, max)
  print "rev" x
}

target mk2(tiles_per_ipu = 4, replication_factor = 4)
const r: uint = replication_index
map r -> tile 0
var x: float[8] @ linear
var w: float[8] @ linear
host_read "sum" <- s
host_read "x" <- x
program main {
  x = cast<float>(r) + 1.0
  s = all_reduce(x, add)
  g = all_gather(x[0:2])
  print "g" g
  m = all_reduce(x, max, group = consecutive(2))
  print "m" m
  rs = reduce_scatter(x, add)
  print "rs" rs
  b = replica_broadcast(x, root = 3)
  print "b" b
}

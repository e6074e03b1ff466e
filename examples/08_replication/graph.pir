// Data parallelism: four replicas of one graph, each with its own input
// (made from its replication index), multiply by the same weights, then
// average their results with an all-reduce and gather them.
target mk2(tiles_per_ipu = 4, replication_factor = 4)
const r: uint = replication_index
map r -> tile 0
const w: float[4, 4] @ linear = [[1, 0, 0, 0], [0, 2, 0, 0], [0, 0, 3, 0], [1, 1, 1, 1]]
var x: float[4, 1] @ linear
host_read "mean" <- mean
program main {
  x = cast<float>(r) * 0.5 + 1.0
  y = matmul(w, x)
  mean = all_reduce(y, mean)
  all = all_gather(y[0:2, 0])
  print "y" y
  print "all" all
}

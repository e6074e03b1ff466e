// Control flow that differs between replicas: replica 0 skips the
// collective the others wait at, and the run stops with an error.
target mk2(tiles_per_ipu = 2, replication_factor = 3)
const r: uint = replication_index
map r -> tile 0
var x: float[4] @ tile 1
program main {
  if r {
    x = all_reduce(x, add)
  }
}

target mk2(tiles_per_ipu = 2, replication_factor = 6)
var x: float[4] @ tile 0
var b: bool[4] @ tile 1
const f: float = replication_index
program main {
  a = all_reduce(x, add, group = consecutive(4))
  c = all_reduce(x, and)
  d = all_reduce(b, add)
  e = all_to_all(x)
  g = replica_broadcast(x, root = 6)
  h = all_gather(x, add)
  k = all_reduce(x, plus)
  m = all_reduce(x, add, group = diagonal(2))
  n = x + all_gather(x)
}

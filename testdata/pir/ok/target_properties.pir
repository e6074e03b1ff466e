// A graph sized by its target: `target.num_tiles` and the target keys
// (`target.tiles_per_ipu`, `target.workers`, …) are integers.
target mk1(tiles_per_ipu = 8)
var x: float[target.num_tiles * 2]
for t in 0..target.num_tiles {
  map x[2 * t:2 * t + 2] -> tile t
}
compute_set cs {
  for t in 0..target.num_tiles / target.ipus {
    vertex V @ tile t { out = x[2 * t:2 * t + 2], n = target.workers }
  }
}
program main { execute cs }

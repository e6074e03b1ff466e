target mk2(tiles_per_ipu = 2)
var a: float[4]
var a: float[2]
map a[9] -> tile 0
map a -> tile 7
compute_set cs { vertex V { x = nope } }
program main {
  execute cs2
  copy a[0:2] -> a
}

// The tiles' random generators (issue 25): each tile draws its own
// numbers, which depend only on the tile and how many it drew before
// (kept across compute sets and loop iterations), so both devices and
// every thread count print the same (testdata/tests/run.rs runs this case
// on 1 to 4 threads too). Two vertices on tile 1 draw one after the other.
target mk2(tiles_per_ipu = 4)
codelets "random_codelets.cpp"
var u: uint[5, 3]
var f: float[5, 3]
var w: uint[6] @ tile 3
for t in 0..4 {
  map u[t] -> tile t
  map f[t] -> tile t
}
map u[4] -> tile 1
map f[4] -> tile 1
compute_set draw {
  for t in 0..4 { vertex Draw @ tile t { u = u[t], f = f[t] } }
  vertex Draw @ tile 1 { u = u[4], f = f[4] }
}
compute_set workers { vertex PerWorker @ tile 3 { out = w } }
program main {
  repeat 2 {
    execute draw
    print "u" u
    print "f" f
  }
  execute workers
  print "w" w
}

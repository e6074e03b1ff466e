// A failed `assert` in a codelet, compiled with -g through a `.pir` run:
// the error names the vertex, tile, compute set, program step and line.
target mk2(tiles_per_ipu = 4)
codelets "assert_codelets.cpp" ["-g"]
var x: float[8] = [1, 2, 3, 4, 5, -6, 7, 8]
map x[0:4] -> tile 2
map x[4:8] -> tile 3
compute_set checkCS {
  vertex CheckPositive @ tile 2 { in = x[0:4] }
  vertex CheckPositive @ tile 3 { in = x[4:8] }
}
program main { execute checkCS }

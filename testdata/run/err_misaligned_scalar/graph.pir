// A float read one byte into its edge on tile 1 (vertex id 1): the scalar
// alignment trap names the tile, the vertex and the tile address.
target mk2(tiles_per_ipu = 2)
codelets "misaligned_codelets.cpp" ["-g"]
var v: float[2] @ tile 0 = [1.0, 2.0]
var w: float[2] @ tile 1 = [1.0, 2.0]
var out: float[2] @ tile 0
map out[1] -> tile 1
compute_set shifted {
  vertex Shifted @ tile 0 { in = v, out = out[0], off = 4 }
  vertex Shifted @ tile 1 { in = w, out = out[1], off = 1 }
}
program main { execute shifted  print "after" out }

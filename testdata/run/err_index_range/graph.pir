// A computed index past a local array's end on tile 1 (vertex id 1): a
// trap naming the index, on both devices.
target mk2(tiles_per_ipu = 2)
codelets "index_codelets.cpp" ["-g"]
var out: float[2] @ tile 0
map out[1] -> tile 1
compute_set pickCS {
  vertex Pick @ tile 0 { out = out[0], index = 3 }
  vertex Pick @ tile 1 { out = out[1], index = 4 }
}
program main { execute pickCS  print "after" out }

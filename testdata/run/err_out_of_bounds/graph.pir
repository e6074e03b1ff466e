// An out-of-bounds read on tile 1 (vertex id 1).
target mk2(tiles_per_ipu = 2)
codelets "oob_codelets.cpp" ["-g"]
var v: float[4] @ tile 0 = 1.0
var w: float[4] @ tile 1 = 2.0
var out: float[2] @ tile 0
map out[1] -> tile 1
compute_set peekCS {
  vertex Peek @ tile 0 { in = v, out = out[0], index = 2 }
  vertex Peek @ tile 1 { in = w, out = out[1], index = 1000000 }
}
program main { print "before" v  execute peekCS  print "after" out }

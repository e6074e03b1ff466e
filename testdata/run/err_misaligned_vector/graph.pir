// A float2 read at an odd float offset on tile 1 (vertex id 1).
target mk2(tiles_per_ipu = 2)
codelets "misaligned_codelets.cpp" ["-g"]
var v: float[4] @ tile 0 = [1.0, 2.0, 3.0, 4.0]
var w: float[4] @ tile 1 = [1.0, 2.0, 3.0, 4.0]
var out: float[2] @ tile 0
map out[1] -> tile 1
compute_set pairs {
  vertex Pairs @ tile 0 { in = v, out = out[0], start = 2 }
  vertex Pairs @ tile 1 { in = w, out = out[1], start = 1 }
}
program main { execute pairs  print "after" out }

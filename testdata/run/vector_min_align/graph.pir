// MinAlign honoured: `x` and `y` (five floats each, 20 bytes) share tile 0,
// so without it `y` would start at 20, not a multiple of 8. `x[1:5]` starts
// 4 bytes into `x`: no placement of `x` aligns both it and `x`, so that
// edge is received into an aligned buffer instead of passed in place.
target mk2(tiles_per_ipu = 2)
codelets "align_codelets.cpp"
var x: float[5] @ tile 0 = [1, 2, 3, 4, 5]
var y: float[5] @ tile 0
var z: float[4] @ tile 0
var w: float[3] @ tile 1
compute_set cs {
  vertex Twice2 @ tile 0 { in = x, out = y }
  vertex Twice2 @ tile 0 { in = x[1:5], out = z }
  vertex Twice2 @ tile 1 { in = x[2:5], out = w }
}
program main { execute cs  print "y" y  print "z" z  print "w" w }

// Templates and half: Scale<T> for float, half (computed in float, rounded
// to nearest even on store) and int.
target mk2(tiles_per_ipu = 4)
codelets "tmpl_codelets.cpp"
var x: float[4] @ tile 0 = [1.0, 2.0, 3.0, 4.0]
var h: half[5] @ tile 1 = [0.5, 1.5, 2.5, 3.25, 0.1]
var i: int[3] @ tile 2 = [1, -2, 3]
compute_set scale {
  vertex Scale<float> @ tile 0 { data = x, k = 2.5 }
  vertex Scale<half> @ tile 1 { data = h, k = 3.0 }
  vertex Scale<int> @ tile 2 { data = i, k = -3 }
}
program main {
  print "h0" h
  execute scale
  print "x" x
  print "h" h
  print "i" i
}

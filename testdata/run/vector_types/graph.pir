// IPU vector types in codelets: float2 and half4 over edges, on two tiles.
target mk2(tiles_per_ipu = 4)
codelets "vec_codelets.cpp"
var x: float[8] @ tile 0 = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0]
var y: float[8] @ tile 0 = [0.5, 0.5, 0.5, 0.5, -1.0, -1.0, -1.0, -1.0]
var above: int[8] @ tile 0 = [0, 0, 0, 0, 0, 0, 0, 0]
var h: half[8] @ tile 1 = [0.5, 1.5, -2.5, 3.25, 0.1, 7.0, -0.3, 100.0]
compute_set vec {
  vertex AxpyF2 @ tile 0 { x = x, y = y, above = above, a = 1.5 }
  vertex ScaleH4 @ tile 1 { h = h, k = 0.3 }
}
program main {
  execute vec
  print "y" y
  print "above" above
  print "h" h
}

// `Vector<Input<T>>` fields connected to lists of single elements: items
// from several tensors and tiles (received by exchange), in any order, and
// `InOut` items updated in place.
target mk2(tiles_per_ipu = 4)
codelets "edges_codelets.cpp"
var a: float[4] @ tile 0 = [1.0, 2.0, 3.0, 4.0]
var b: float[2] @ tile 1 = [10.0, 20.0]
var w: float[3] @ tile 2 = [0.5, 2.0, -1.0]
var y: float[6] @ tile 3
var c: int[5] @ tile 1 = [0, 0, 0, 0, 0]
var s: int @ tile 1 = 7
compute_set gather {
  vertex Gather @ tile 3 { picks = [a[3], b[0], a[0]], weights = [w[0], w[1], w[2]], out = [y[5], y[1], y[3]] }
}
compute_set bump {
  vertex Bump @ tile 1 { counters = [c[4], c[0]], step = s }
  vertex Bump @ tile 2 { counters = [c[2]], step = s }
}
program main {
  execute gather
  print "y" y
  repeat 2 { execute bump }
  print "c" c
}

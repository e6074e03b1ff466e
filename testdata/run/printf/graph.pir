// Codelet printf in deterministic order: tiles ascending, then vertices.
target mk2(tiles_per_ipu = 4)
codelets "printf_codelets.cpp"
var v: float[6] = [1.0, 2.0, 3.0, 4.0, 5.0, 6.5]
map v -> tiles 0..3
compute_set cs {
  vertex Report @ tile 2 { in = v[4:6], id = 3 }
  vertex Report @ tile 0 { in = v[0:2], id = 1 }
  vertex Report @ tile 0 { in = v[0:6], id = 2 }
  vertex Report @ tile 1 { in = v[2:4], id = 4 }
}
program main { execute cs  print "v" v }

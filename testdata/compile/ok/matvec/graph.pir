// y = M x for a 4x6 matrix, columns split in 2 blocks of 3 (tutorial 7's scheme).
target mk2(tiles_per_ipu = 8)
codelets "matvec_codelets.cpp"
var m: float[4, 6] = [[1.0, 2.0, 3.0, 4.0, 5.0, 6.0], [0.0, 1.0, 0.0, 1.0, 0.0, 1.0], [2.0, 2.0, 2.0, 2.0, 2.0, 2.0], [1.0, 0.0, 0.0, 0.0, 0.0, 1.0]]
var x: float[6] = [1.0, 1.0, 1.0, 2.0, 2.0, 2.0]
var partials: float[4, 2]
var y: float[4]
map m -> linear(grain = 6)
map x -> tiles 0..2
map partials -> linear
map y -> linear
host_read "y" <- y
compute_set mul {
  for r in 0..4 { for b in 0..2 {
    vertex DotProductVertex { a = m[r, b * 3:(b + 1) * 3], b = x[b * 3:(b + 1) * 3], out = partials[r, b] }
  } }
}
compute_set reduce {
  for r in 0..4 { vertex ReduceVertex { in = partials[r], out = y[r] } }
}
program main { execute mul  execute reduce  print "y" y }

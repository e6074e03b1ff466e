// Audit 2026-11 (matmul_inplace_alias): m = matmul(m, m) on one tile; rows 1 to 3 were wrong.
target mk2(tiles_per_ipu = 1)
var m: float[4, 4] = [[1.0,2.0,3.0,4.0],[5.0,6.0,7.0,8.0],[9.0,10.0,11.0,12.0],[13.0,14.0,15.0,16.0]]
map m -> linear
program main {
  m = matmul(m, m)
  print "m" m
}

// Tutorial 2 (Poplar user guide) with library operations: three additions
// (`popops::add`) whose outputs are new tensors mapped like their first
// operand, the last one reading a transposed view.
target mk2(tiles_per_ipu = 4)
var v1: float[2, 2]
var v2: float[2, 2]
for i in 0..2 {
  for j in 0..2 {
    map v1[i, j] -> tile i * 2 + j
    map v2[i, j] -> tile j * 2 + i
  }
}
const c1: float[4] = [1.0, 1.5, 2.0, 2.5]
const c2: float[4] = [4.0, 3.0, 2.0, 1.0]
map c1 -> tile 0
map c2 -> tile 0
program main {
  copy c1 -> flatten(v1)
  copy c2 -> flatten(v2)
  v3 = v1 + v2
  print "v3" v3
  v4 = v3 + v2
  print "v4" v4
  v5 = v1 + transpose(v2)
  print "v5" v5
}

// Tutorial 2 of the Poplar user guide (using PopLibs): three element-wise
// additions of 2x2 matrices, v3 = v1 + v2, v4 = v3 + v2 and
// v5 = v1 + transpose(v2), with the tutorial's tile mappings. The tutorial
// calls popops::add; here a hand-written codelet (add_codelets.cpp) does
// each addition, laid out as popops lays it out: each result is mapped like
// its first operand and every tile adds the elements it holds.
target mk2
codelets "add_codelets.cpp"
var v1: float[2, 2]
var v2: float[2, 2]
var v3: float[2, 2]
var v4: float[2, 2]
var v5: float[2, 2]
const c1: float[4] = [1.0, 1.5, 2.0, 2.5]
const c2: float[4] = [4.0, 3.0, 2.0, 1.0]
for i in 0..2 {
  for j in 0..2 {
    map v1[i, j] -> tile i * 2 + j
    map v2[i, j] -> tile j * 2 + i
    map v3[i, j] -> tile i * 2 + j
    map v4[i, j] -> tile i * 2 + j
    map v5[i, j] -> tile i * 2 + j
  }
}
map c1 -> tile 0
map c2 -> tile 0
compute_set add_v3 {
  for i in 0..2 { for j in 0..2 {
    vertex ElementwiseAdd @ tile i * 2 + j { a = v1[i, j:j + 1], b = v2[i, j:j + 1], out = v3[i, j:j + 1] }
  } }
}
compute_set add_v4 {
  for i in 0..2 { for j in 0..2 {
    vertex ElementwiseAdd @ tile i * 2 + j { a = v3[i, j:j + 1], b = v2[i, j:j + 1], out = v4[i, j:j + 1] }
  } }
}
compute_set add_v5 {
  for i in 0..2 { for j in 0..2 {
    vertex ElementwiseAdd @ tile i * 2 + j { a = v1[i, j:j + 1], b = transpose(v2)[i, j:j + 1], out = v5[i, j:j + 1] }
  } }
}
program main {
  copy c1 -> flatten(v1)
  copy c2 -> flatten(v2)
  execute add_v3
  print "v3" v3
  execute add_v4
  print "v4" v4
  execute add_v5
  print "v5" v5
}

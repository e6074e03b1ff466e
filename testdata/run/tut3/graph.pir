// Tutorial 3 (Poplar user guide): v2[i] is the suffix sum of v1 from i, one
// SumVertex per tile with a cycle estimate of 20.
target mk2(tiles_per_ipu = 4)
codelets "tut3_codelets.cpp"
var v1: float[4]
var v2: float[4]
const c1: float[4] = [1.0, 1.5, 2.0, 2.5]
map c1 -> tile 0
for i in 0..4 { map v1[i] -> tile i  map v2[i] -> tile i }
compute_set computeSet {
  for i in 0..4 { vertex SumVertex @ tile i { in = v1[i:4], out = v2[i] } cycles 20 }
}
program main {
  copy c1 -> v1
  execute computeSet
  print "v2" v2
}

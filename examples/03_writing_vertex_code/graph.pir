// Tutorial 3 of the Poplar user guide (writing vertex code): v2[i] is the
// sum of v1[i..4], one SumVertex per tile with the tutorial's cycle
// estimate of 20.
target mk2
codelets "tut3_codelets.cpp"
var v1: float[4]
var v2: float[4]
const c1: float[4] = [1.0, 1.5, 2.0, 2.5]
for i in 0..4 { map v1[i] -> tile i  map v2[i] -> tile i }
map c1 -> tile 0
compute_set computeSet {
  for i in 0..4 { vertex SumVertex @ tile i { in = v1[i:4], out = v2[i] } cycles 20 }
}
program main {
  copy c1 -> v1
  execute computeSet
  print "v2" v2
}

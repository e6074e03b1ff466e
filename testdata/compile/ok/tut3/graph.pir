// Tutorial 3: four SumVertex on four tiles.
target mk2(tiles_per_ipu = 4)
codelets "tut3_codelets.cpp"
var v1: float[4] = [1.0, 1.5, 2.0, 2.5]
var v2: float[4]
map v1 -> tile 0
for i in 0..4 { map v2[i] -> tile i }
compute_set cs { for i in 0..4 { vertex SumVertex @ tile i { in = v1[i:], out = v2[i] } } }
program main { execute cs  print "v2" v2 }

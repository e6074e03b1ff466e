// compute() returns false on tile 2; the error names it and the step.
target mk2(tiles_per_ipu = 4)
codelets "false_codelets.cpp"
var v: int[4] = [1, 2, -3, 4]
for i in 0..4 { map v[i] -> tile i }
compute_set checkCS { for i in 0..4 { vertex CheckPositive @ tile i { in = v[i:i + 1] } } }
program main { repeat 2 { execute checkCS } }

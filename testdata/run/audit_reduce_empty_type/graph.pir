// Audit 2026-11 (reduce_empty_wrong_type): reduce over an empty float tensor took the element type of the file's first tensor (int) and was refused; z is -inf.
target mk2(tiles_per_ipu = 4)
var x: int[2]
var y: float[0, 3]
map x -> linear
map y -> linear
program main { fill x 3  z = reduce(y, max)  print "z" z print "x" x }

// Audit 2026-11 (reduce_empty_wrong_type): the same through a cast of an empty half tensor; z is 0.
target mk2(tiles_per_ipu = 4)
var x: half[0, 3]
map x -> linear
program main { y = cast<float>(x)  z = reduce(y, add)  print "z" z }

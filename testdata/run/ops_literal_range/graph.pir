// A literal beyond float's range is infinite in a float expression, as C++
// rounds it (found by the `pir` fuzz target: the generated codelet spelt it
// `inff`).
target mk2(tiles_per_ipu = 4)
var x: float[4] @ linear = [1.0, -1.0, 0.5, 2.0]
program main {
  y = relu(x * 777777777777777777777777777777777777777777777.0 - 1.0)
  z = x * -1.0e39 + 1.0e-50
  print "y" y
  print "z" z
}

// From the pir fuzz target: 120 unary minuses pass PIR's own limits; their
// codelet passed popc's nesting limit (an internal error). An operation's
// expression deeper than 64 levels is now refused before its codelet is made.
target mk2(tiles_per_ipu = 2)
var a: float[4] @ tile 0 = 1
var acc: float[4] @ tile 0 = 2
program main {
  acc /= ------------------------------------------------------------------------------------------------------------------------ a
}

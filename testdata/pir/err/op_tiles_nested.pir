// A nested block names tiles of the enclosing one only.
target mk2(tiles_per_ipu = 8)
var a: float[4] @ linear
program main { tiles 0..4 { tiles 3..5 { b = a + a } } }

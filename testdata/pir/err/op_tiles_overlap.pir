// The ranges of one set do not overlap.
target mk2(tiles_per_ipu = 8)
var a: float[4] @ linear
program main { tiles 0..4, 2..6 { b = a + a } }

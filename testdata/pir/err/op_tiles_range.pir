// A tile set past the target.
target mk2(tiles_per_ipu = 4)
var a: float[4] @ linear
program main { tiles 2..6 { b = a + a } }

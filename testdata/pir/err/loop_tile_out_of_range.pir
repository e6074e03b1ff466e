// A tile past the target's inside a loop: one error per position, naming
// the first iteration that produces it and the tile in the label.
target mk2(tiles_per_ipu = 4)
var a: float[40]
for i in 0..40 {
  map a[i] -> tiles i / 8 .. i / 8 + 2
}

// An elementwise operation whose output overlaps an operand at other
// positions, and one that writes the same elements twice.
target mk2(tiles_per_ipu = 4)
var a: float[6] @ linear = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
var b: float[3] @ tile 0
program main {
  a[1:6] = a[0:5] + 1.0
  broadcast(b, 2) = 1.0
}

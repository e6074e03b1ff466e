var a: float[2, 3] @ tile 0
var b: float[3, 2] @ tile 0
program main {
  c = a + b
}

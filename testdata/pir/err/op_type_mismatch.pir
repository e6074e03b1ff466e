var a: float[4] @ tile 0
var h: half[4] @ tile 0
var acc: half[4] @ tile 0
program main {
  c = a * h
  acc = a + 1.0
}

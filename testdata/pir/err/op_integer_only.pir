var a: float[4] @ tile 0
var i: int[4] @ tile 0
var p: bool[4] @ tile 0
program main {
  b = bitwise_and(a, a)
  c = shift_left(a, 2.0)
  d = popcount(p)
  e = sin(i)
  f = is_nan(i)
}

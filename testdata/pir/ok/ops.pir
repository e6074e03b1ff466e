// Library operations: fused elementwise expressions, in place updates,
// fill, casts, comparisons, reduce and matmul.
var a: float[2, 3] @ tile 0
var b: float[2, 3] @ tile 1
var h: half[4] @ tile 0
var m: float[3, 4] @ tile 0
var i: int[6] @ linear
var acc: float[2, 3] @ tile 0
var s: float @ tile 0
program main {
  fill a 1.5
  fill i -2
  c = a + b
  d = relu(a * 2.0 - b) / (c + 1)
  e = min(a, transpose(transpose(b))) + max(a, s) - pow(a, 2.0)
  f = cast<half>(exp(a) + log(b) * sqrt(a) - tanh(b) + sigmoid(-a))
  g = a < b
  k = (a >= b) == (a != c)
  acc += a
  acc -= b * 0.5
  acc *= 2
  acc /= c
  acc = acc + a
  a[0, 1:3] += b[1, 0:2]
  hh = h * cast<half>(3)
  j = abs(-i) * 3 + i
  p = matmul(transpose(m), m)
  q = matmul(a, m)
  r = reduce(a, add, dims = [0])
  t = reduce(g, or, dims = [0, 1])
  u = reduce(m, max)
  print "c" c
}
var off: uint[2] @ tile 0
program dynamic {
  ds = dynamic_slice(m, off, dims = [0, 1], sizes = [2, 3])
  dynamic_update(m, ds, off, dims = [0, 1], sizes = [2, 3])
}

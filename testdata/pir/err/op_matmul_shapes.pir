var a: float[4, 3] @ tile 0
var b: float[4, 2] @ tile 0
var x: int[4] @ tile 0
var c: float[2] @ tile 0
program main {
  m = matmul(a, b)
  y = exp(x)
  r = reduce(a, and, dims = [0])
  c = reduce(a, add, dims = [1])
  d = 1.0 + 2.0
}

var a: float[4] @ tile 0
program main {
  b = softplus(a)
  fil a 0.0
}

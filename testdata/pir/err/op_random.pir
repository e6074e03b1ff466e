var a: float[4] @ tile 0
var i: int[4] @ tile 0
const seed: uint[2] @ tile 0 = [1, 2]
const fseed: float[2] @ tile 0 = [1.0, 2.0]
program main {
  b = bernoulli(a, float, prob = 1.5, seed = seed)
  u = uniform(a, float, min = 2.0, max = 1.0, seed = seed)
  n = normal(a, int, mean = 0.0, stddev = 1.0, seed = seed)
  v = uniform(a, float, min = 0.0, max = 1.0, seed = fseed)
  w = uniform(a, float, min = 0.0, max = 1.0)
  d = dropout(a, a, keep = 0.0, scale = 1.0, seed = seed)
  x = a + uniform(a, float, min = 0.0, max = 1.0, seed = seed)
  y = logical_and(a, a)
  z = floor(i)
  s = select(a, a, a)
}

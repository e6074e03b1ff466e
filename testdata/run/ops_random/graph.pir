// poprand's generators and the elementwise functions added with them, on
// both devices. `x` and `y` have the same shape but different tile
// mappings, so `u` and `uy` (same seed and modifier) show that the values
// do not depend on the mapping. The values are this toolchain's generator
// (docs/pir-ops.md, "Random numbers"), not an IPU's.
target mk2(tiles_per_ipu = 4)
var x: float[3, 5]
var y: float[3, 5]
map x -> linear
map y -> tile 3
const seed: uint[2] @ tile 0 = [1, 2]
const seed_int: int[2] @ tile 2 = [1, 2]
var m: uint @ tile 1 = 3
var c: bool[4] @ tile 2 = [true, false, true, false]
var a: float[4] @ tile 2 = [1.5, -2.5, 0.0, 7.25]
var b: float[4] @ tile 3 = [2.0, 2.0, -1.0, -3.0]
var ah: half[4] @ tile 1 = [1.5, -2.5, -0.0, 7.25]
var bh: half[4] @ tile 1 = [2.0, 2.0, -1.0, -3.0]
var i1: int[4] @ tile 3 = [7, -7, 7, -7]
var i2: int[4] @ tile 3 = [3, 3, -3, -3]
program main {
  fill x 3.0
  fill y 3.0
  u = uniform(x, float, min = -1.0, max = 1.0, seed = seed, modifier = 1)
  uy = uniform(y, float, min = -1.0, max = 1.0, seed = seed_int, modifier = 1)
  u2 = uniform(x, float, min = -1.0, max = 1.0, seed = seed, modifier = 2)
  n = normal(x, half, mean = 0.0, stddev = 1.0, seed = seed)
  t = truncated_normal(x, float, mean = 0.0, stddev = 1.0, alpha = 1.0, seed = seed, modifier = m)
  k = bernoulli(x, int, prob = 0.25, seed = seed)
  r = uniform(x, int, min = -3, max = 3, seed = seed)
  l = log_uniform(x, half, min = 1.0, max = 100.0, base = 10.0, seed = seed)
  d = dropout(x, y, keep = 0.5, scale = 2.0, seed = seed, modifier = 4)
  x = dropout(x, x, keep = 0.5, scale = 2.0, seed = seed, modifier = 4)
  s = select(a, b, c)
  s2 = select(a, 0.5, a > b)
  q = a % b
  qh = ah % bh
  qi = i1 % i2
  g = signum(a)
  gi = signum(i1 - 7)
  fl = floor(a)
  ce = ceil(ah)
  ge = gelu_erf(a)
  geh = gelu_erf(ah)
  lo = logical_and(c, a > b)
  lr = logical_or(c, logical_not(a > b))
  print "u" u
  print "uy" uy
  print "u2" u2
  print "n" n
  print "t" t
  print "k" k
  print "r" r
  print "l" l
  print "d" d
  print "x" x
  print "s" s
  print "s2" s2
  print "q" q
  print "qh" qh
  print "qi" qi
  print "g" g
  print "gi" gi
  print "fl" fl
  print "ce" ce
  print "ge" ge
  print "geh" geh
  print "lo" lo
  print "lr" lr
}

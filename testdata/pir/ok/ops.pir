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
// poprand's generators and the elementwise functions added with them.
const seed: uint[2] @ tile 1 = [1, 2]
var modt: uint @ tile 1
program random {
  ru = uniform(a, float, min = -1.0, max = 1.0, seed = seed, modifier = 5)
  rl = log_uniform(i, int, min = 1.0, max = 100.0, base = 10.0, seed = seed)
  rn = normal(h, half, mean = 0.5, stddev = 2.0, seed = seed, modifier = modt)
  rt = truncated_normal(m, float, mean = 0.0, stddev = 1.0, alpha = 2.0, seed = seed)
  rb = bernoulli(a, int, prob = 0.25, seed = seed)
  rd = dropout(a, b, keep = 0.75, scale = 1.5, seed = seed)
  w = select(a, -a, a > b) + a % b + signum(b) * floor(a) - ceil(b)
  z = logical_or(logical_and(a > b, logical_not(a < b)), g)
  y = gelu_erf(h) + signum(h)
}
// The rest of popops' element-wise functions: maths, tests, integer bits.
var n: uint[6] @ linear
program functions {
  fm = erf(a) + sin(a) * cos(b) - tan(a) + asin(b) + cbrt(a) + expm1(a) - exp2(b) + log1p(a)
  fa = atan2(a, b) + nearbyint(a) + round(b) - trunc(a)
  fv = variance_to_inv_std_dev(a, b) + inv_std_dev_to_variance(a, 0.001)
  hv = variance_to_inv_std_dev(h, h)
  ft = logical_or(is_finite(a), logical_and(is_inf(b), is_nan(a)))
  fh = is_nan(h)
  ib = bitwise_xnor(bitwise_and(i, 12), bitwise_or(i, bitwise_xor(i, -1)))
  is = shift_left(i, 2) + shift_right(i, 1) + shift_right_sign_extend(i, 31) + bitwise_not(i)
  ic = popcount(n) + count_leading_zeros(n)
}

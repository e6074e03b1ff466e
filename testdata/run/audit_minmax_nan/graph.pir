// Audit 2026-11 (minmax_nan): min(nan, 1) was 1 but min(1, nan) NaN, relu(nan) 0, and reduce max skipped NaN.
// Now NaN propagates whichever operand holds it, as numpy's minimum, maximum and max.
target mk2(tiles_per_ipu = 1)
var x: float[4] = [nan, 1.0, nan, 2.0]
var y: float[4] = [1.0, nan, nan, 3.0]
map x -> tile 0
map y -> tile 0
var h: half[4] @ tile 0 = [1.0, nan, -2.0, 3.0]
program main {
  hn = min(h, broadcast(h[0], 4))
  hx = max(broadcast(h[0], 4), h)
  hmin = reduce(h, min)
  hok = reduce(h[2:4], min)
  mn = min(x, y)
  mx = max(x, y)
  r = relu(x)
  rmax = reduce(x, max)
  print "min" mn
  print "max" mx
  print "relu" r
  print "reduce max" rmax
  print "half min" hn
  print "half max" hx
  print "half reduce min" hmin
  print "half reduce min, no nan" hok
}

// NaN held by one replica propagates through all_reduce max and min on
// every replica (IEEE 754-2019 maximum/minimum, as the elementwise ops),
// float and half.
target mk2(tiles_per_ipu = 4, replication_factor = 3)
const r: uint = replication_index
map r -> tile 0
var x: float[4] @ linear
var h: half[4] @ linear
var m: float[4] @ linear
program main {
  x = cast<float>(r) - 1.0
  x = x / x
  m = all_reduce(x, max)
  print "max" m
  m = all_reduce(x, min)
  print "min" m
  h = cast<half>(x)
  h = all_reduce(h, max)
  print "hmax" h
}

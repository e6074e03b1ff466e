// Every view function, slices with steps, several subscripts, for-loops over
// items, nested loops and index arithmetic.
target bow(ipus = 2, workers = 4, clock_mhz = 1000, exchange_bytes_per_cycle = 8, bytes_per_tile = 1024, tiles_per_ipu = 8)
var m: float[4, 6]
var t3: half[2, 3, 4] = 0.1
var v: float[12] @ tile 3
const c: float[2] @ tile 0 = [1.0, 2.0]
var w: int[3, 2] = [[1, -2], [3, 4], [-2147483648, 2147483647]]
var b: bool[2] = [true, 0]
var u: ulong[2] = [18446744073709551615, 0]
var s: char = -128
var h: half[3] = [65504.0, 1e-8, -inf]
var f: float[2] = [nan, 3.4028234663852886e38]
var k: uint = 0x2A

map m[1, 1:4] -> tile 1
map m[:, 2] -> tile 2
map v[::2] -> tile 4
map v[1:9:2] -> tile 5
map transpose(m) -> linear
map dimshuffle(t3, [2, 0, 1]) -> tiles 0..16
map reshape(m, [2, 12]) -> tile 15
map flatten(t3)[3:20:5] -> tile 6
map reverse(v) -> tile 7
map concat(v[0:2], v[5:7], m[0, 0:3]) -> tile 8
map concat(m[0:2], m[2:4], dim = 1) -> tile 9
map concat(transpose(m)[1:3], transpose(m)[4:6]) -> tile 10

for i in 0..2 {
  map m[2 * i + 1] -> tile (i * 3 + 7) % 16
}

compute_set views {
  vertex Copy { in = broadcast(v[3], 4), out = m[0, 2:6] }
  vertex Copy { in = reverse(transpose(m))[0], out = m[1, 0:4] }
  vertex Copy { in = reshape(transpose(m), [24])[5:9], out = v[0:4] }
  vertex Copy { in = dimshuffle(t3, [1, 2, 0])[2, 3], out = t3[0, 0, 0:2] }
  vertex Copy { in = concat(m, m)[3:6, 1], out = v[4:7] }
  vertex Copy { in = reshape(concat(v, v), [4, 6])[:, 1:3], out = flatten(m)[0:8] }
  vertex Copy { in = concat(m[0:1], m[3:4], dim = 0)[1, min(5, 9):max(6, 2)], out = v[max(1, 0)] }
  vertex Copy { in = affine(v, 1, [[2, 5], [2, -1]]), out = m[3, 0:4] }
  vertex Copy { in = w[2, 1], out = k }
  for i in 0..3 {
    for j in 0..2 {
      vertex Pair<int, 2> @ tile i * 2 + j { x = w[i, j], n = i - j, scale = 1e-3, flag = false }
    }
  }
  vertex Tmpl<uint, ulong, bool, short, ushort, char, uchar, long, int, -3, Inner<half>, ns::Deep<float, 7>> {}
  vertex Cpp<unsigned, size_t, int64_t, uint64_t, int8_t, double, popnn::NonLinearityType::SWISH, Kind> {}
  vertex Sized<3 * 4 - 1 / 2> { big = 9223372036854775807, small = -9223372036854775808 }
}

program main {
  execute views
  print "m" m
  print "tail" m[3, 2:]
  print "head" m[:2, :3]
  print "col" m[0:4:3, 5]
  print "scalar" t3[1, 2, 3]
}

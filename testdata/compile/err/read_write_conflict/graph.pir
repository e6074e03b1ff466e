target mk2(tiles_per_ipu = 4)
codelets "../../common/codelets.cpp"
var a: float[8]
map a -> linear
compute_set cs {
  vertex Scale<float> @ tile 0 { data = a[0:4], k = 2.0 }
  vertex SumVertex @ tile 1 { in = a[2:6], out = a[7] }
}
program main { execute cs }

target mk2(tiles_per_ipu = 4)
codelets "../../common/codelets.cpp"
var a: float[8]
var s: float[4]
map a -> linear
map s -> tile 1
compute_set cs {
  vertex SumVertex @ tile 0 { in = a[0:4], out = s[1] }
  vertex SumVertex @ tile 2 { in = a[4:8], out = s[1] }
}
program main { execute cs }

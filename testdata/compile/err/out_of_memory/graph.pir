target mk2(tiles_per_ipu = 2, bytes_per_tile = 256)
codelets "../../common/codelets.cpp"
var a: float[100]
map a -> tile 0
var b: float[8] @ tile 1
compute_set cs { vertex Scale<float> @ tile 1 { data = a[0:60], k = 2.0 } }
program main { execute cs }

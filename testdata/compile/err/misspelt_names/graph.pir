// Misspelt vertex types and fields get the closest name as a suggestion.
target mk2(tiles_per_ipu = 4)
codelets "../../common/codelets.cpp"
var data: float[4, 4]
var s: float[4]
map data -> linear
map s -> linear
compute_set cs {
  vertex SumVertex @ tile 0 { in = data[0], ot = s[0] }
  vertex sumvertex @ tile 1 { in = data[1], out = s[1] }
  vertex Scale<float> @ tile 2 { data = data[2], kk = 2.0 }
}
program main { execute cs }

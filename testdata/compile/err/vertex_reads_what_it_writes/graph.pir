// One vertex reads, through its Input edge, an element it writes through
// its Output edge (the checker the 2026-11 audit asked for: the race check
// compared only different vertices). An InOut edge is how a codelet reads
// and writes the same elements.
target mk2(tiles_per_ipu = 4)
codelets "../../common/codelets.cpp"
var a: float[8]
map a -> linear
compute_set cs {
  vertex SumVertex @ tile 0 { in = a[0:4], out = a[2] }
  vertex Scale<float> @ tile 1 { data = a[4:8], k = 2.0 }
}
program main { execute cs }

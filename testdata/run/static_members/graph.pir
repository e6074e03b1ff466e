// Codelets' static storage (issue 30): static data members and
// namespace-scope variables are tile memory, one copy per tile,
// initialised when the image is loaded and kept from run to run. Every
// `Count` vertex on a tile adds to its tile's counters (tile 1 runs two);
// `Norm`'s workers share partial sums through a static array.
// Both devices and every thread count print the same (testdata/tests/run.rs
// runs this case on 1 to 4 threads too).
target mk2(tiles_per_ipu = 4)
codelets "static_codelets.cpp"
var c: uint[4, 4]
const x: float[24] @ tile 2 = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0, 9.0, 10.0, 11.0, 12.0, 13.0, 14.0, 15.0, 16.0, 17.0, 18.0, 19.0, 20.0, 21.0, 22.0, 23.0, 24.0]
var n: float[2] @ tile 2
for t in 0..3 { map c[t] -> tile t }
map c[3] -> tile 1
compute_set count {
  for t in 0..3 { vertex Count @ tile t { out = c[t] } }
  vertex Count @ tile 1 { out = c[3] }
}
compute_set norm { vertex Norm @ tile 2 { x = x, out = n } }
program main {
  repeat 2 {
    execute count
    print "c" c
  }
  execute norm
  print "n" n
}

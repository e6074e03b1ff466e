// Two nested 100,000-iteration loops around one vertex: 10^10 iterations,
// rejected before anything is expanded (it once took 16 s and 3 GB).
target mk2
codelets "x.cpp"
var a: float[4]
map a -> tile 0
compute_set cs {
  for i in 0..100000 {
    for j in 0..100000 {
      vertex V @ tile 0 { x = a }
    }
  }
}

// Tutorial 7 on mk1 with the tutorial's perf estimates (split 5, as the user guide's run picks).
// The graph of the Poplar tutorial's tut6.cpp (the user guide's tutorial 7):
// a 10000x1000 matrix times a vector, each row split into 5 column
// segments: 50,000 DotProductVertex partial sums in mulCS, then 10,000
// ReduceVertex sums in reduceCS, mapped as tut6.cpp maps them (segment-major
// vertex order over the tiles; the input vector spread element by element).
// The matrix and vector are filled on the device with known patterns
// (initCS), standing in for the tutorial's host writes; gen.py computed the
// expected result independently.
target mk1
codelets "../tut7_split/matrix-mul-codelets.cpp"
var matrix: float[10000, 1000]
var inputVector: float[1000]
var partials: float[10000, 5]
var outputVector: float[10000]
for s in 0..5 {
  for r in 0..10000 {
    map matrix[r, s * 1000 / 5:(s + 1) * 1000 / 5] -> tile (s * 10000 + r) * 1216 / 50000
    map partials[r, s] -> tile (s * 10000 + r) * 1216 / 50000
  }
}
for r in 0..10000 { map outputVector[r] -> tile r * 1216 / 10000 }
for c in 0..1000 { map inputVector[c] -> tile c * 1216 / 1000 }
host_read "outputVector" <- outputVector
compute_set initCS {
  for s in 0..5 {
    for r in 0..10000 {
      vertex FillMatrix @ tile (s * 10000 + r) * 1216 / 50000 {
        out = matrix[r, s * 1000 / 5:(s + 1) * 1000 / 5], row = r, col0 = s * 1000 / 5
      }
    }
  }
  for c in 0..1000 { vertex FillVector @ tile c * 1216 / 1000 { out = inputVector[c:c + 1], col0 = c } }
}
compute_set mulCS {
  for s in 0..5 {
    for r in 0..10000 {
      vertex DotProductVertex @ tile (s * 10000 + r) * 1216 / 50000 {
        a = matrix[r, s * 1000 / 5:(s + 1) * 1000 / 5],
        b = inputVector[s * 1000 / 5:(s + 1) * 1000 / 5],
        out = partials[r, s]
      } cycles 5 + ((s + 1) * 1000 / 5 - s * 1000 / 5 + 1) / 2
    }
  }
}
compute_set reduceCS {
  for r in 0..10000 { vertex ReduceVertex @ tile r * 1216 / 10000 { in = partials[r], out = outputVector[r] } cycles 5 + (5 + 1) / 2 }
}
program init { execute initCS }
program multiply { execute mulCS  execute reduceCS }

// Tutorial 7 on mk2 without perf estimates: the C++ codelet's counted cycles.
// The graph of the Poplar tutorial's tut6.cpp (the user guide's tutorial 7):
// a 10000x1000 matrix times a vector, each row split into 7 column
// segments: 70,000 DotProductVertex partial sums in mulCS, then 10,000
// ReduceVertex sums in reduceCS, mapped as tut6.cpp maps them (segment-major
// vertex order over the tiles; the input vector spread element by element).
// The matrix and vector are filled on the device with known patterns
// (initCS), standing in for the tutorial's host writes; gen.py computed the
// expected result independently.
target mk2
codelets "../tut7_split/matrix-mul-codelets.cpp"
var matrix: float[10000, 1000]
var inputVector: float[1000]
var partials: float[10000, 7]
var outputVector: float[10000]
for s in 0..7 {
  for r in 0..10000 {
    map matrix[r, s * 1000 / 7:(s + 1) * 1000 / 7] -> tile (s * 10000 + r) * 1472 / 70000
    map partials[r, s] -> tile (s * 10000 + r) * 1472 / 70000
  }
}
for r in 0..10000 { map outputVector[r] -> tile r * 1472 / 10000 }
for c in 0..1000 { map inputVector[c] -> tile c * 1472 / 1000 }
host_read "outputVector" <- outputVector
compute_set initCS {
  for s in 0..7 {
    for r in 0..10000 {
      vertex FillMatrix @ tile (s * 10000 + r) * 1472 / 70000 {
        out = matrix[r, s * 1000 / 7:(s + 1) * 1000 / 7], row = r, col0 = s * 1000 / 7
      }
    }
  }
  for c in 0..1000 { vertex FillVector @ tile c * 1472 / 1000 { out = inputVector[c:c + 1], col0 = c } }
}
compute_set mulCS {
  for s in 0..7 {
    for r in 0..10000 {
      vertex DotProductVertex @ tile (s * 10000 + r) * 1472 / 70000 {
        a = matrix[r, s * 1000 / 7:(s + 1) * 1000 / 7],
        b = inputVector[s * 1000 / 7:(s + 1) * 1000 / 7],
        out = partials[r, s]
      }
    }
  }
}
compute_set reduceCS {
  for r in 0..10000 { vertex ReduceVertex @ tile r * 1472 / 10000 { in = partials[r], out = outputVector[r] } }
}
program init { execute initCS }
program multiply { execute mulCS  execute reduceCS }

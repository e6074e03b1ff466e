// A variant of the Poplar user guide's tutorial 7 (the faithful port, on mk1
// with the tutorial's mappings, is examples/07_matrix_vector_opt): a
// 10000x1000 matrix times a vector, each
// row split in 7 column segments (the split the tutorial's estimator picks
// on mk2): 70,000 DotProductVertex partial sums, then 10,000 ReduceVertex.
// The matrix and vector are filled on the device with known patterns;
// gen.py computed the expected result independently.
target mk2
codelets "matrix-mul-codelets.cpp"
var matrix: float[10000, 1000]
var inputVector: float[1000]
var partials: float[10000, 7]
var outputVector: float[10000]
for r in 0..10000 {
  for s in 0..7 {
    map matrix[r, s * 1000 / 7:(s + 1) * 1000 / 7] -> tile (r * 7 + s) * 1472 / 70000
    map partials[r, s] -> tile (r * 7 + s) * 1472 / 70000
  }
  map outputVector[r] -> tile r * 1472 / 10000
}
for s in 0..7 { map inputVector[s * 1000 / 7:(s + 1) * 1000 / 7] -> tile s * 1472 / 7 }
host_read "outputVector" <- outputVector
compute_set fillCS {
  for r in 0..10000 {
    for s in 0..7 {
      vertex FillMatrix @ tile (r * 7 + s) * 1472 / 70000 {
        out = matrix[r, s * 1000 / 7:(s + 1) * 1000 / 7], row = r, col0 = s * 1000 / 7
      }
    }
  }
  for s in 0..7 {
    vertex FillVector @ tile s * 1472 / 7 { out = inputVector[s * 1000 / 7:(s + 1) * 1000 / 7], col0 = s * 1000 / 7 }
  }
}
compute_set mulCS {
  for r in 0..10000 {
    for s in 0..7 {
      vertex DotProductVertex @ tile (r * 7 + s) * 1472 / 70000 {
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
program init { execute fillCS }
program multiply { execute mulCS  execute reduceCS }

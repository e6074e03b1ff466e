// Tutorial 7 of the Poplar user guide (matrix-vector multiplication
// optimisation), as the guide runs it: `./matrix-vector 10000 1000` on an
// IPU Model of an mk1 IPU. Each row is split into 5 segments, the split the
// tutorial's estimator picks for this size (estimate.py reproduces it);
// 50,000 DotProductVertex partial sums, then 10,000 ReduceVertex, with the
// tutorial's tile mappings and cycle estimates. Program `fill` writes the
// matrix the host program would stream in (see README.md); `main` is the
// tutorial's sequence. Mappings spread over `target.num_tiles`, as the
// tutorial's `target.getNumTiles()`, so the file serves any target
// (`poplar-compile --target mk2`).
target mk1
codelets "matrix-mul-codelets.cpp"
var matrix: float[10000, 1000]
var inputVector: float[1000]
var partials: float[10000, 5]
var outputVector: float[10000]
stream "inputVector": float[1000] from host
stream "out": float[10000] to host

for i in 0..1000 { map inputVector[i] -> tile i * target.num_tiles / 1000 }
for i in 0..5 {
  for row in 0..10000 {
    map matrix[row, i * 1000 / 5:(i + 1) * 1000 / 5] -> tile (i * 10000 + row) * target.num_tiles / 50000
    map partials[row, i] -> tile (i * 10000 + row) * target.num_tiles / 50000
  }
}
for row in 0..10000 { map outputVector[row] -> tile row * target.num_tiles / 10000 }

compute_set fillCS {
  for i in 0..5 {
    for row in 0..10000 {
      vertex FillMatrix @ tile (i * 10000 + row) * target.num_tiles / 50000 {
        out = matrix[row, i * 1000 / 5:(i + 1) * 1000 / 5], row = row, col0 = i * 1000 / 5
      }
    }
  }
}
compute_set mulCS {
  for i in 0..5 {
    for row in 0..10000 {
      vertex DotProductVertex @ tile (i * 10000 + row) * target.num_tiles / 50000 {
        a = matrix[row, i * 1000 / 5:(i + 1) * 1000 / 5],
        b = inputVector[i * 1000 / 5:(i + 1) * 1000 / 5],
        out = partials[row, i]
      } cycles 5 + ((i + 1) * 1000 / 5 - i * 1000 / 5 + 1) / 2
    }
  }
}
compute_set reduceCS {
  for row in 0..10000 {
    vertex ReduceVertex @ tile row * target.num_tiles / 10000 { in = partials[row], out = outputVector[row] } cycles 5 + (5 + 1) / 2
  }
}

program fill { execute fillCS }
program main {
  copy "inputVector" -> inputVector
  execute mulCS
  execute reduceCS
  copy outputVector -> "out"
}

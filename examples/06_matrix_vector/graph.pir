// Tutorial 6 of the Poplar user guide (matrix-vector multiplication), run
// as the guide runs it: `./matrix-vector 40 50`. The matrix and both
// vectors are mapped linearly; one DotProductVertex per row, row i's on
// tile i with the tutorial's estimate of 20 cycles. The program copies the
// inputs in from their streams, multiplies, and copies the result out.
target mk2
codelets "matrix-mul-codelets.cpp"
var matrix: float[40, 50]
var inputVector: float[50]
var outputVector: float[40]
map matrix -> linear
map inputVector -> linear
map outputVector -> linear
stream "inputVector": float[50] from host
stream "inputMatrix": float[2000] from host
stream "out": float[40] to host
compute_set mulCS {
  for i in 0..40 {
    vertex DotProductVertex @ tile i { a = matrix[i], b = inputVector, out = outputVector[i] } cycles 20
  }
}
program main {
  copy "inputVector" -> inputVector
  copy "inputMatrix" -> matrix
  execute mulCS
  copy outputVector -> "out"
}

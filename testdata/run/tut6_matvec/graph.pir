// A variant of the Poplar user guide's tutorial 6 (the faithful port is
// examples/06_matrix_vector): a 40x50 matrix times a vector of 50, one
// DotProductVertex per row. The matrix comes from a .npy file and the
// vector from a raw .bin file (written by gen.py, which also computed the
// expected result independently).
target mk2(tiles_per_ipu = 16)
codelets "matrix-mul-codelets.cpp"
var matrix: float[40, 50]
var inputVector: float[50]
var outputVector: float[40]
map matrix -> linear(grain = 50)
map inputVector -> tile 0
map outputVector -> linear
host_write "matrix" -> matrix
host_write "inputVector" -> inputVector
host_read "outputVector" <- outputVector
compute_set mulCS {
  for i in 0..40 {
    vertex DotProductVertex { a = matrix[i], b = inputVector, out = outputVector[i] }
  }
}
program main { execute mulCS }

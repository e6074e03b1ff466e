// A block of a matrix product, the work poplin::matMul does for tutorial 4
// (PopLibs' own codelets are not part of this toolchain): out = a x b for
// `rows` rows of a and a block of `cols` columns of b. Each of the tile's
// workers computes every sixth row of the block.
#include <poplar/Vertex.hpp>

using namespace poplar;

class MatMulBlock : public MultiVertex {
public:
  Input<Vector<float>> a;    // rows x k, row-major
  Input<Vector<float>> b;    // k x cols, row-major
  Output<Vector<float>> out; // rows x cols, row-major
  unsigned rows;
  unsigned cols;

  bool compute(unsigned workerId) {
    const unsigned k = a.size() / rows;
    for (unsigned r = workerId; r < rows; r += numWorkers()) {
      float *o = &out[r * cols];
      for (unsigned c = 0; c < cols; ++c)
        o[c] = 0;
      for (unsigned i = 0; i < k; ++i) {
        const float x = a[r * k + i];
        const float *brow = &b[i * cols];
        for (unsigned c = 0; c < cols; ++c)
          o[c] = o[c] + x * brow[c];
      }
    }
    return true;
  }
};

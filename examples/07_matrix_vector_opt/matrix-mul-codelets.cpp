// Tutorial 7's codelets: dot products of row segments, the reduction of
// the partial sums, and FillMatrix, which writes the values the tutorial's
// host program puts in the matrix (see README.md).
#include <poplar/Vertex.hpp>

using namespace poplar;

class DotProductVertex : public Vertex {
public:
  Input<Vector<float>> a;
  Input<Vector<float>> b;
  Output<float> out;

  bool compute() {
    float sum = 0;
    for (unsigned i = 0; i < a.size(); ++i)
      sum += a[i] * b[i];
    *out = sum;
    return true;
  }
};

class ReduceVertex : public Vertex {
public:
  Input<Vector<float>> in;
  Output<float> out;

  bool compute() {
    float sum = 0;
    for (unsigned i = 0; i < in.size(); ++i)
      sum += in[i];
    *out = sum;
    return true;
  }
};

// matrix[row][col] = row * col, for the columns col0 .. col0 + out.size().
class FillMatrix : public Vertex {
public:
  Output<Vector<float>> out;
  unsigned row;
  unsigned col0;

  bool compute() {
    for (unsigned i = 0; i < out.size(); ++i)
      out[i] = float(row * (col0 + i));
    return true;
  }
};

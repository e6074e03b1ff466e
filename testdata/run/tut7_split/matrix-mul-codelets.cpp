// Tutorials 6 and 7: dot products of row segments, and their reduction.
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

// Fills a row segment with a known pattern: ((row * 7 + col * 3) % 11) - 5.
class FillMatrix : public Vertex {
public:
  Output<Vector<float>> out;
  unsigned row;
  unsigned col0;

  void compute() {
    for (unsigned i = 0; i < out.size(); ++i)
      out[i] = float(int((row * 7 + (col0 + i) * 3) % 11) - 5);
  }
};

// x[c] = (c % 5) - 2.
class FillVector : public Vertex {
public:
  Output<Vector<float>> out;
  unsigned col0;

  void compute() {
    for (unsigned i = 0; i < out.size(); ++i)
      out[i] = float(int((col0 + i) % 5) - 2);
  }
};

// Matrix-vector product in the style of the Poplar tutorial 7.
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

#include <poplar/Vertex.hpp>
using namespace poplar;
class SumVertex : public Vertex {
public:
  Input<Vector<float>> in;
  Output<float> out;
  bool compute() {
    float sum = 0;
    for (unsigned i = 0; i < in.size(); ++i) sum += in[i];
    *out = sum;
    return true;
  }
};
// RUN SumVertex
//   in = [1, 2, 3.5]
//   out = [0]

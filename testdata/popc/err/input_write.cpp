// Writing an Input edge's data is a compile error (it is a const tensor).
#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  Input<Vector<float>> in;
  Output<Vector<float>> out;
  void compute() {
    out[0] = in[0];
    in[1] = 2.0f;
  }
};

// The bytes of a local scalar (held in a register) cannot be reinterpreted.
#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  Input<float> in;
  Output<unsigned> out;
  void compute() {
    float x = *in;
    *out = *reinterpret_cast<unsigned *>(&x);
  }
};

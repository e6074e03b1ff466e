// A C-style cast of a pointer to an integer narrower than a tile address
// (g++ refuses it too; `(bool)p` and 32-bit or wider integers are fine).
#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  Input<Vector<float>> in;
  Output<unsigned> out;
  void compute() {
    const float *p = &in[0];
    *out = (unsigned)p + (bool)p + (unsigned short)p;
  }
};

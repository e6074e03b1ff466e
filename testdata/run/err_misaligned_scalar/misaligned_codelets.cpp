// Reads a float through `char* + off`: a misaligned load when `off` is not
// a multiple of 4, which traps on both devices, as on the IPU.
#include <poplar/Vertex.hpp>
using namespace poplar;

class Shifted : public Vertex {
public:
  Input<Vector<float>> in;
  Output<float> out;
  unsigned off;
  void compute() {
    const char *p = reinterpret_cast<const char *>(&in[0]) + off;
    *out = *reinterpret_cast<const float *>(p);
  }
};

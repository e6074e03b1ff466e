// Reads a float2 through a pointer to element `start` of its edge: a
// misaligned access when `start` is odd, which traps on both devices.
#include <poplar/Vertex.hpp>
using namespace poplar;

class Pairs : public Vertex {
public:
  Input<Vector<float, VectorLayout::SPAN, 8>> in;
  Output<float> out;
  unsigned start;
  void compute() {
    const float2 *p = reinterpret_cast<const float2 *>(&in[start]);
    *out = (*p)[0] + (*p)[1];
  }
};

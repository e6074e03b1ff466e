// A compound assignment through a float2 pointer made from an Input
// edge is refused at the user's line (it was reported inside <ipudef.h>).
#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  Input<Vector<float, VectorLayout::SPAN, 8>> in;
  Output<float> out;
  void compute() {
    const float2 *p = reinterpret_cast<const float2 *>(&in[0]);
    float2 *q = const_cast<float2 *>(p);
    *q += float2{1.0f, 2.0f};
    *out = in[0];
  }
};

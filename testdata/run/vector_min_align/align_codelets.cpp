// A vertex that reads and writes its edges as float2, asking for 8-byte
// aligned data (`Vector<float, SPAN, 8>`): the graph compiler must place
// the data so, or the float2 accesses trap as misaligned.
#include <poplar/Vertex.hpp>
using namespace poplar;
class Twice2 : public Vertex {
public:
  Input<Vector<float, VectorLayout::SPAN, 8>> in;
  Output<Vector<float, VectorLayout::SPAN, 8>> out;
  void compute() {
    const float2 *i2 = reinterpret_cast<const float2 *>(&in[0]);
    float2 *o2 = reinterpret_cast<float2 *>(&out[0]);
    for (unsigned i = 0; i < in.size() / 2; ++i) o2[i] = i2[i] * 2.0f;
    if (in.size() % 2) out[in.size() - 1] = in[in.size() - 1] * 2.0f;
  }
};

// MinAlign (the third argument of Vector) must be a power of two.
#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  Input<Vector<float, VectorLayout::SPAN, 12>> in;
  Output<float> out;
  void compute() { *out = in[0]; }
};

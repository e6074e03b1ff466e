#include <poplar/Vertex.hpp>
using namespace poplar;

struct Quad {
  float4 v;
};

class Wrapped : public Vertex {
public:
  Input<Vector<float, VectorLayout::SPAN, 16>> in;
  Output<Vector<float, VectorLayout::SPAN, 16>> out;
  void compute() {
    const Quad *q = reinterpret_cast<const Quad *>(&in[1]);
    float4 sum = q[1].v + q->v;
    for (unsigned k = 0; k < 4; ++k)
      out[k] = sum[k];
  }
};

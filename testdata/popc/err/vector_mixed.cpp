#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  Output<float> out;
  void compute() {
    float2 a = {1.0f, 2.0f};
    float4 b = {1.0f, 2.0f, 3.0f, 4.0f};
    *out = (a + b)[0];
  }
};

#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  Output<float> out;
  void compute() {
    float2 a = {1.0f, 2.0f};
    int4 b = __builtin_convertvector(a, int4);
    *out = b[0];
  }
};

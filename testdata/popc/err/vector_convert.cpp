#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  Output<int> out;
  void compute() {
    float2 a = {1.0f, 2.0f};
    int2 b = a;
    *out = b[0];
  }
};

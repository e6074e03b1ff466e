#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  Output<float> out;
  void compute() {
    float2 a = {1.0f, 2.0f};
    *out = a[2];
  }
};

#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  Output<float> out;
  void compute() {
    half4 a = {1.0f, 2.0f, 3.0f, 4.0f};
    a %= half(2.0f);
    *out = a[0];
  }
};

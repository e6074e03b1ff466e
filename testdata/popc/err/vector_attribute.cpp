// A vector attribute on a variable, rather than a typedef, is refused by
// name: skipping it would silently make the variable a scalar.
#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  Output<float> out;
  void compute() {
    float a __attribute__((vector_size(8))) = {1.0f, 2.0f};
    *out = a[0];
  }
};

// A vector attribute between a typedef's type and its name is refused by
// name, as after the name (vector_attribute.cpp).
#include <poplar/Vertex.hpp>
using namespace poplar;
typedef float __attribute__((vector_size(8))) myfloat2;
class V : public Vertex {
public:
  Output<float> out;
  void compute() { *out = 1.0f; }
};

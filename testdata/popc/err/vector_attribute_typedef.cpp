// A vector attribute whose count has no IPU vector type (8 floats).
#include <poplar/Vertex.hpp>
using namespace poplar;
typedef float __attribute__((vector_size(32))) float8;
class V : public Vertex {
public:
  Output<float> out;
  void compute() {
    float8 a = {};
    *out = a[0];
  }
};

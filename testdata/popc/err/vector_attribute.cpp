#include <poplar/Vertex.hpp>
using namespace poplar;
typedef float myfloat2 __attribute__((ext_vector_type(2)));
class V : public Vertex {
public:
  Output<float> out;
  void compute() {
    myfloat2 a = {1.0f, 2.0f};
    *out = a[0];
  }
};

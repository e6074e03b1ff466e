// The C++11 spelling of GCC's vector attribute is refused by name, not
// skipped (which would make `v4` a plain float).
#include <poplar/Vertex.hpp>
using namespace poplar;
typedef float v4 [[gnu::vector_size(16)]];
class V : public Vertex {
public:
  Output<float> out;
  void compute() { *out = sizeof(v4); }
};

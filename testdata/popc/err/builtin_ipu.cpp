#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  Output<float> out;
  bool compute() { *out = __builtin_ipu_rsqrt(2.0f); return true; }
};

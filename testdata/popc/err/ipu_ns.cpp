#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  Output<float> out;
  bool compute() { *out = ipu::sqrt(2.0f); return true; }
};

#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  float coeffs[4];
  bool compute() { return true; }
};

#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  Output<int> out;
  bool compute() { *out = missing + 1; return true; }
};

#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  bool compute() { int *p = new int; return true; }
};

#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  bool compute() { void *p = malloc(4); return true; }
};

#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  char *buffer;
  bool compute() { return true; }
};

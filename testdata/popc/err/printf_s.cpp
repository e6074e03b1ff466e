#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  bool compute() { printf("%s\n", 1); return true; }
};

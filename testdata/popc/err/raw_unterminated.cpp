// A raw string whose closing delimiter never comes: the error points at its start.
#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  bool compute() {
    printf(R"tag(never closed)other");
    return true;
  }
};

#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  bool compute() { goto end; end: return true; }
};

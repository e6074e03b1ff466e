#include <poplar/Vertex.hpp>
using namespace poplar;
struct B { int x; };
class V : public Vertex {
public:
  bool compute() { B *b = 0; return dynamic_cast<B *>(b) != 0; }
};

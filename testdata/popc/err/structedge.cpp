#include <poplar/Vertex.hpp>
using namespace poplar;
struct P { float x, y; };
class V : public Vertex {
public:
  Input<P> in;
  bool compute() { return true; }
};

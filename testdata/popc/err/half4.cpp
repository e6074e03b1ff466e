#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  Input<Vector<half4>> in;
  bool compute() { return true; }
};

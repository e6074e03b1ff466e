#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  Input<Vector<int>> in;
  bool compute() { delete &in[0]; return true; }
};

#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  Input<Vector<float, ONE_PTR>> in;
  bool compute() { return in.size() > 0; }
};

#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  Input<Vector<Vector<Vector<float>>>> in;
  bool compute() { return true; }
};

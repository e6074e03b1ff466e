#include <poplar/Vertex.hpp>
using namespace poplar;
union U { Input<float> a; Input<int> b; };
class V : public Vertex {
public:
  bool compute() { return true; }
};

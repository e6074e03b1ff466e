#include <poplar/Vertex.hpp>
using namespace poplar;
class Bad : public Vertex {
public:
  Input<Vector<float>> in;
  Output<float> out;
  bool compute() { *out = in[0] + undeclared; return true; }
};

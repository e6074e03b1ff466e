// A memcpy into a local may not write past it.
#include <poplar/Vertex.hpp>
#include <cstring>
using namespace poplar;
class V : public Vertex {
public:
  Input<Vector<int>> in;
  Output<int> out;
  void compute() {
    short s;
    std::memcpy(&s, &in[0], 4);
    *out = s;
  }
};

// A const_cast of an Input's address, kept in a pointer variable, does
// not make its data writable.
#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  Input<Vector<int>> in;
  Output<int> out;
  void compute() {
    int *p = const_cast<int *>(&in[0]);
    *out = p[0];
    p += 1;
    *p = 7;
  }
};

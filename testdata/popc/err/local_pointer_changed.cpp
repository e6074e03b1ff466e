// A pointer to a local is a compile-time address, not a variable: moving
// it is refused by name.
#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  Output<unsigned> out;
  void compute() {
    unsigned a[4] = {1, 2, 3, 4};
    unsigned *p = a;
    unsigned s = 0;
    for (int i = 0; i < 4; ++i) s += *p++;
    *out = s;
  }
};

// Signed division that overflows: the most negative long divided by -1.
#include <poplar/Vertex.hpp>
using namespace poplar;

class Divide : public Vertex {
public:
  Input<long> a;
  Input<long> b;
  Output<long> q;
  void compute() { *q = *a / *b; }
};

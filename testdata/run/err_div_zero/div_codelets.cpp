// Integer division by a zero divisor.
#include <poplar/Vertex.hpp>
using namespace poplar;

class Divide : public Vertex {
public:
  Input<int> a;
  Input<int> b;
  Output<int> q;
  void compute() { *q = *a / *b; }
};

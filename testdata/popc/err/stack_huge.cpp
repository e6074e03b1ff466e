// Each array fits one object's limit; together they pass the stack limit.
#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  Input<int> in;
  Output<int> out;
  void compute() {
    int a[200000];
    int b[200000];
    a[1] = *in;
    b[1] = a[1];
    *out = b[1];
  }
};

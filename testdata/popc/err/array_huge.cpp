// 4 GiB: each dimension is allowed, the product is far past one object's limit.
#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  Input<int> in;
  Output<int> out;
  void compute() {
    int a[1024][1024][1024];
    a[1][2][3] = *in;
    *out = a[1][2][3];
  }
};

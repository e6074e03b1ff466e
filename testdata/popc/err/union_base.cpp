#include <poplar/Vertex.hpp>
using namespace poplar;
struct A {
  int i;
};
union U : A {
  float f;
};
class V : public Vertex {
public:
  Output<int> out;
  bool compute() {
    U u{};
    *out = u.i;
    return true;
  }
};

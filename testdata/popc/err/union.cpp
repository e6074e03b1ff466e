#include <poplar/Vertex.hpp>
using namespace poplar;
struct Poly {
  virtual int f() const { return 1; }
};
union U {
  int i;
  Poly p;
};
class V : public Vertex {
public:
  Output<int> out;
  bool compute() {
    U u;
    *out = u.i;
    return true;
  }
};

#include <poplar/Vertex.hpp>
using namespace poplar;
struct Poly {
  float x, y;
  virtual float f() const { return x + y; }
};
class V : public Vertex {
public:
  Output<float> out;
  bool compute() {
    Poly p{1.0f, 2.0f};
    *out = p.f();
    return true;
  }
};

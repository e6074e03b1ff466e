#include <poplar/Vertex.hpp>
using namespace poplar;
struct Poly {
  float x;
  virtual float f() const { return x; }
};
class V : public Vertex {
public:
  Output<float> out;
  bool compute() {
    Poly p;
    unsigned *words = reinterpret_cast<unsigned *>(&p);
    words[0] = 0;
    *out = p.f();
    return true;
  }
};

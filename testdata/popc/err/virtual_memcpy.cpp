#include <poplar/Vertex.hpp>
#include <cstring>
using namespace poplar;
struct Poly {
  float x;
  virtual float f() const { return x; }
};
class V : public Vertex {
public:
  Input<Vector<float>> in;
  Output<float> out;
  bool compute() {
    Poly p;
    std::memcpy(&p, &in[0], sizeof(Poly));
    *out = p.f();
    return true;
  }
};

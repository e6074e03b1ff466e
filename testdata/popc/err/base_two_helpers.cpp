// popc has no multiple inheritance: a second helper base class is refused
// by name.
#include <poplar/Vertex.hpp>
using namespace poplar;
struct A { int a; };
struct B { int b; };
struct C : A, B { int c; };
class V : public Vertex {
public:
  Output<int> out;
  void compute() {
    C x{};
    *out = x.c;
  }
};

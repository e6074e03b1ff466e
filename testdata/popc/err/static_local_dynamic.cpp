// A static local is static storage, initialised before the program runs
// from a constant; one initialised from a run-time value (which C++ does
// at its first pass) is refused, naming the variable.
#include <poplar/Vertex.hpp>
using namespace poplar;
class First : public Vertex {
public:
  Input<float> in;
  Output<float> out;
  void compute() {
    static float first = *in;
    *out = first;
  }
};

// An alias of a reference type: popc reads whether a declaration binds a
// reference from where it is written, so `fref x = ...` would silently be
// a copy. Refused at the alias instead.
#include <poplar/Vertex.hpp>
using namespace poplar;
typedef float &fref;
class V : public Vertex {
public:
  Output<Vector<float>> out;
  void compute() {
    fref r = out[0];
    r = 7.0f;
  }
};

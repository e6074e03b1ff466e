// reinterpret_cast of a value that is not a pointer (C++ allows it only to
// the value's own type, which no codelet needs).
#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  Input<float> in;
  Output<unsigned> out;
  void compute() { *out = reinterpret_cast<unsigned>(*in); }
};

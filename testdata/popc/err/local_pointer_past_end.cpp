// A pointer into a local array moved past the array's end: locals'
// addresses are compile-time values, so the error is at compile time.
#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  Output<unsigned> out;
  void compute() {
    unsigned short pair[2] = {1, 2};
    *out = *reinterpret_cast<unsigned long long *>(pair);
  }
};

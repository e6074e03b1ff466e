// Attributes where GCC puts them too: between a typedef's type and its
// name (was: "expected ';'") and after an array's bounds (was: "unknown
// type 'float'"). Like other attributes they are skipped: popc's locals
// have no addresses, so an alignment asked of one changes nothing.
#include <poplar/Vertex.hpp>
using namespace poplar;
typedef float __attribute__((aligned(8))) f8;
typedef int i4 __attribute__((aligned(4)));
class T : public Vertex {
public:
  Input<f8> a;
  Output<i4> b;
  void compute() {
    float w[2] __attribute__((aligned(16))) = {0.5f, 1.5f};
    static const int k[1] [[maybe_unused]] = {3};
    *b = i4(*a * 2.0f + w[1]) + k[0];
  }
};
// RUN T
//   a = [2.5]
//   b = [0]

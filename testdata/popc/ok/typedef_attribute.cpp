// A typedef may carry attributes where GCC puts them too, between the type
// and the name (was: "expected ';'"); like other attributes they are skipped.
#include <poplar/Vertex.hpp>
using namespace poplar;
typedef float __attribute__((aligned(8))) f8;
typedef int i4 __attribute__((aligned(4)));
class T : public Vertex {
public:
  Input<f8> a;
  Output<i4> b;
  void compute() { *b = i4(*a * 2.0f); }
};
// RUN T
//   a = [2.5]
//   b = [0]

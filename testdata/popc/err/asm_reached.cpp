// Inline assembly in a helper is an error once a vertex calls the helper
// (it is not one where only the IPU's path would call it).
#include <poplar/Vertex.hpp>
using namespace poplar;
inline int fast(int x) {
  asm volatile("add %0, %0, 1" : "+r"(x));
  return x;
}
class UsesAsm : public Vertex {
public:
  Input<int> in;
  Output<int> out;
  void compute() { *out = fast(*in); }
};

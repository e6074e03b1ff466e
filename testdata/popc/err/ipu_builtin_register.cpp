// A built-in that reads an IPU control register popc has no meaning for.
#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  Output<unsigned> out;
  void compute() { *out = __builtin_ipu_uget(0x1f); }
};

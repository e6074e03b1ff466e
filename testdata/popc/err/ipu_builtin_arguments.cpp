#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  Output<unsigned> out;
  void compute() { *out = __builtin_ipu_urand32(7); }
};

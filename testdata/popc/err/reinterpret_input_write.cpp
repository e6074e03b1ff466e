// An Input edge's address taken as an integer, rounded down to 16 bytes
// and made a pointer again is still read-only data: the write is refused.
#include <poplar/Vertex.hpp>
#include <cstdint>
using namespace poplar;
class V : public Vertex {
public:
  Input<Vector<float, VectorLayout::SPAN, 16>> in;
  Output<float> out;
  void compute() {
    std::uintptr_t at = reinterpret_cast<std::uintptr_t>(&in[1]) & ~std::uintptr_t(15);
    float *p = reinterpret_cast<float *>(at);
    *p = 42.0f;
    *out = in[0];
  }
};

// poplar::IeeeHalf, as popfloat's codelets use it: built from a float
// (rounded to nearest even), its bit pattern by bit16(), and a half from a
// bit pattern by fromBits(). Expected values: 1.5 is 0x3e00 (15872), 0.1
// rounds to 0x2e66 (11878), 65520 overflows to infinity 0x7c00 (31744),
// -2 is 0xc000 (49152); bits 0x3c00 are 1.0 and 0x0001 the smallest
// subnormal, 2^-24.
#include <poplar/Vertex.hpp>
#include <poplar/IeeeHalf.hpp>
using namespace poplar;

static float halfFromBits(unsigned short bits) { return float(poplar::IeeeHalf::fromBits(bits)); }

class Bits : public Vertex {
public:
  Input<Vector<float>> in;
  Output<Vector<unsigned short>> bits;
  Output<Vector<float>> back;
  bool compute() {
    for (unsigned i = 0; i < in.size(); ++i) {
      poplar::IeeeHalf h(in[i]);
      bits[i] = h.bit16();
      back[i] = halfFromBits(bits[i]);
    }
    back[in.size()] = halfFromBits(0x3c00);
    back[in.size() + 1] = halfFromBits(1) * 16777216.0f;
    return true;
  }
};

// RUN Bits
//   in = [1.5, 0.1, 65520, -2]
//   bits = [0, 0, 0, 0]
//   back = [0, 0, 0, 0, 0, 0]

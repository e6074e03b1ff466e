// memcpy and memset with locals at either end: a register variable, a
// local array or struct, and tile memory, with constant lengths (a float's
// bits read as an integer, bytes packed into a word, a struct filled).
#include <poplar/Vertex.hpp>
#include <cstring>
using namespace poplar;

struct Pair {
  short lo, hi;
};

class Bits : public Vertex {
public:
  Input<Vector<float>> in;
  Output<Vector<unsigned>> bits;
  Output<Vector<int>> packed;
  void compute() {
    for (unsigned i = 0; i < in.size(); ++i) {
      float f = in[i];
      unsigned u;
      std::memcpy(&u, &f, sizeof(u));
      bits[i] = u;
    }
    unsigned char b[4];
    for (unsigned i = 0; i < 4; ++i) b[i] = i + 1;
    int w;
    std::memcpy(&w, b, 4);
    packed[0] = w;
    Pair p;
    std::memset(&p, 0xff, sizeof(p));
    std::memcpy(&p.hi, &in[0], 2);
    packed[1] = p.lo;
    std::memcpy(&packed[2], &p, sizeof(p));
  }
};
// RUN Bits
//   in = [1, -2.5, 0]
//   bits = [0, 0, 0]
//   packed = [0, 0, 0]

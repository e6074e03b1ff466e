// Reads the tile's cycle counter before and after some work:
// `__builtin_ipu_get_scount_l/_u` are its low and high 32 bits.
#include <poplar/Vertex.hpp>
using namespace poplar;

class Timed : public Vertex {
public:
  InOut<Vector<float>> v;
  Output<Vector<unsigned>> t;
  void compute() {
    t[0] = __builtin_ipu_get_scount_l();
    t[1] = __builtin_ipu_get_scount_u();
    for (unsigned i = 0; i < v.size(); ++i)
      v[i] = v[i] * v[i] + 1.0f;
    t[2] = __builtin_ipu_get_scount_l();
  }
};

// Draws from the tile's random generator: `__builtin_ipu_urand32`,
// `urand_f32` (uniform in [-0.5, 0.5)) and `f32v2grand` (two standard
// normal values), one draw per call.
#include <poplar/Vertex.hpp>
using namespace poplar;

class Draw : public Vertex {
public:
  Output<Vector<unsigned>> u;
  Output<Vector<float>> f;
  void compute() {
    for (unsigned i = 0; i < u.size(); ++i)
      u[i] = __builtin_ipu_urand32() % 1000;
    f[0] = __builtin_ipu_urand_f32();
    float2 g = __builtin_ipu_f32v2grand();
    f[1] = g[0];
    f[2] = g[1];
  }
};

// One draw per worker, in worker order.
class PerWorker : public MultiVertex {
public:
  Output<Vector<unsigned>> out;
  void compute(unsigned w) { out[w] = __builtin_ipu_urand32() % 1000; }
};

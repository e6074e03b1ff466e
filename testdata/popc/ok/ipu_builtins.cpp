// The IPU built-ins with a host meaning (issue 25): the tile's random
// generator (`__builtin_ipu_urand32`, `urand64`, `urand_f32` in
// [-0.5, 0.5), `f32v2grand`), one draw per call, the draws of a
// MultiVertex's workers following one another; and the cycle counter
// (`__builtin_ipu_get_scount_l/_u`), which never goes back. The harness
// runs as tile 0 from draw 0, so the numbers are pinned here.
#include <poplar/Vertex.hpp>
using namespace poplar;

class Draws : public Vertex {
public:
  Output<Vector<unsigned>> u32;
  Output<Vector<unsigned long long>> u64;
  Output<Vector<float>> f;
  Output<Vector<float>> g;
  void compute() {
    for (unsigned i = 0; i < u32.size(); ++i)
      u32[i] = __builtin_ipu_urand32();
    u64[0] = __builtin_ipu_urand64();
    for (unsigned i = 0; i < f.size(); ++i)
      f[i] = __builtin_ipu_urand_f32() + .5f;
    float2 p = __builtin_ipu_f32v2grand();
    g[0] = p[0];
    g[1] = p[1];
  }
};

// The mean of n uniform draws, and whether all of them are in range.
class Mean : public Vertex {
public:
  Output<float> mean;
  Output<bool> inRange;
  unsigned n;
  void compute() {
    float sum = 0;
    bool ok = true;
    for (unsigned i = 0; i < n; ++i) {
      float x = __builtin_ipu_urand_f32();
      ok = ok && x >= -0.5f && x < 0.5f;
      sum += x;
    }
    *mean = sum / n;
    *inRange = ok;
  }
};

class PerWorker : public MultiVertex {
public:
  Output<Vector<unsigned>> out;
  void compute(unsigned w) { out[w] = __builtin_ipu_urand32() & 0xffff; }
};

class Counter : public Vertex {
public:
  InOut<Vector<float>> v;
  Output<bool> forward;
  void compute() {
    unsigned lo = __builtin_ipu_get_scount_l();
    unsigned hi = __builtin_ipu_get_scount_u();
    for (unsigned i = 0; i < v.size(); ++i)
      v[i] = v[i] * 3.0f;
    unsigned lo2 = __builtin_ipu_get_scount_l();
    unsigned hi2 = __builtin_ipu_get_scount_u();
    unsigned long long a = (unsigned long long)hi << 32 | lo;
    unsigned long long b = (unsigned long long)hi2 << 32 | lo2;
    *forward = b >= a;
  }
};
// RUN Draws
//   u32 = [0, 0, 0]
//   u64 = [0]
//   f = [0, 0]
//   g = [0, 0]
// RUN Mean
//   mean = [1]
//   inRange = [0]
//   n = 10000
// RUN PerWorker
//   out = [0, 0, 0, 0, 0, 0]
// RUN Counter
//   v = [1, 2]
//   forward = [0]

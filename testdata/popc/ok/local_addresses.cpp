// Addresses of locals: `&x` of a local pointer handed to helpers that
// advance it through a `T **` (post-incrementing loads and stores written
// in C++), `&n` of a scalar and `&s` of a struct passed to functions that
// write through them, a local array read as a wider word through
// reinterpret_cast, and a pointer into a local array moved by a constant
// and indexed at run time.
#include <poplar/Vertex.hpp>
#include <cstdint>
using namespace poplar;

template <class T> T next(T const **p, int step) {
  T const *at = *p;
  (*p) += step;
  return *at;
}
template <class T> void emit(T **p, T const &v, int step) {
  **p = v;
  (*p) += step;
}
void triple(int *p) { *p *= 3; p[0] += 1; }
struct Pair { int lo; int hi; };
void widen(Pair *p, int by) { p->hi += by; (*p).lo -= by; }

class LocalAddresses : public Vertex {
public:
  Input<Vector<float>> in;
  Output<Vector<float>> out;
  Output<Vector<unsigned>> words;
  bool compute() {
    const float *src = &in[0];
    float *dst = &out[0];
    for (unsigned i = 0; i < in.size(); ++i)
      emit(&dst, next(&src, 1) + 0.5f, 1);
    uint16_t halves[2] = {0x1234, 0xabcd};
    words[0] = *reinterpret_cast<uint32_t *>(halves);
    uint8_t bytes[4] = {1, 2, 3, 4};
    const uint32_t *w = reinterpret_cast<const uint32_t *>(bytes);
    words[1] = w[0];
    int n = 5;
    triple(&n);
    Pair s{10, 20};
    widen(&s, 7);
    words[2] = n + s.lo * 100 + s.hi * 10000;
    unsigned table[4] = {10, 20, 30, 40};
    unsigned *q = table + 1;
    words[3] = q[in.size() % 3] + *(table + 3);
    return true;
  }
};
// RUN LocalAddresses
//   in = [1.0, 2.0, 3.0]
//   out = [0.0, 0.0, 0.0]
//   words = [0, 0, 0, 0]

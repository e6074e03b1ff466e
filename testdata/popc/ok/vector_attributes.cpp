// Vector types made with GCC's `vector_size(BYTES)` or clang's
// `ext_vector_type(N)` on a typedef, before or after the name, at
// namespace scope, in a class, inside a function, and sized from a
// template argument: each is the IPU vector type of that element type and
// count, so it mixes with float4, half2, ... and has their operators,
// alignment and traps. `using` aliases (templated too) take the
// attributes as well, and alias types may be pointers (not references: see
// err/alias_reference.cpp).
#include <poplar/Vertex.hpp>
using namespace poplar;

typedef float f4 __attribute__((ext_vector_type(4)));
typedef int __attribute__((vector_size(8))) i2;
typedef f4 *f4ptr;
template <typename T> using pair = T __attribute__((vector_size(2 * sizeof(T))));

struct Holder {
  typedef half h2 __attribute__((__vector_size__(4), aligned(4)));
  h2 pair;
};

template <typename T> class Scale : public Vertex {
public:
  Input<Vector<T, VectorLayout::SPAN, 16>> in;
  Output<Vector<T, VectorLayout::SPAN, 16>> out;
  T k;
  void compute() {
    typedef T quad __attribute__((vector_size(4 * sizeof(T))));
    const quad *src = reinterpret_cast<const quad *>(&in[0]);
    quad *dst = reinterpret_cast<quad *>(&out[0]);
    for (unsigned i = 0; i < in.size() / 4; ++i) {
      quad q{src[i][0], src[i][1], src[i][2]};
      dst[i] = q * k - quad{1, 2, 3, 4};
    }
  }
};
template class Scale<float>;
template class Scale<int>;

class Mixed : public Vertex {
public:
  Output<Vector<float, VectorLayout::SPAN, 16>> out;
  Output<Vector<int>> mask;
  void compute() {
    f4 a = {1.5f, -2.0f, 3.0f, 0.25f};
    float4 b = a + 1.0f;
    f4ptr p = reinterpret_cast<f4ptr>(&out[0]);
    *p = a * b;
    i2 m = i2{3, -4} < i2{4, -5};
    pair<float> pf{0.5f, 0.25f};
    Holder h;
    h.pair = Holder::h2{half(1.5f), half(2.25f)};
    h.pair *= half(2.0f);
    out[4] = float(h.pair[0] + h.pair[1]);
    out[5] = float(sizeof(f4) + alignof(i2) * 100) + pf[0] + pf[1];
    mask[0] = m[0];
    mask[1] = m[1];
  }
};

// A struct reached 4 bytes into an aligned edge: its float4 member is
// misaligned (only the struct's own alignment, 16, is asked of the
// pointer, and popc checks alignment only through vector pointers), so
// the sum must not use an aligned SIMD access, which faults on the host.
struct Box {
  f4 v;
};
using BoxPtr = const Box *;
class Wrapped : public Vertex {
public:
  Input<Vector<float, VectorLayout::SPAN, 16>> in;
  Output<Vector<float, VectorLayout::SPAN, 16>> out;
  void compute() {
    BoxPtr p = reinterpret_cast<BoxPtr>(&in[1]);
    f4 r = p[0].v + p->v;
    for (unsigned k = 0; k < 4; ++k)
      out[k] = r[k];
  }
};

// RUN Scale<float>
//   in = [1, 2, 3, 4, 5, 6, 7, 8]
//   out = [0, 0, 0, 0, 0, 0, 0, 0]
//   k = 2
// RUN Scale<int>
//   in = [1, 2, 3, 4, 5, 6, 7, 8]
//   out = [0, 0, 0, 0, 0, 0, 0, 0]
//   k = -3
// RUN Mixed
//   out = [0, 0, 0, 0, 0, 0]
//   mask = [0, 0]
// RUN Wrapped
//   in = [1, 2, 3, 4, 5, 6, 7, 8]
//   out = [0, 0, 0, 0]

// Kernels compiled both by popc and by g++ -O2 against the stub header;
// the differential test compares their outputs bit for bit.
#include <poplar/Vertex.hpp>
#include <cmath>
#include <algorithm>
using namespace poplar;

class Dot : public Vertex {
public:
  Input<Vector<float>> a;
  Input<Vector<float>> b;
  Output<float> out;
  bool compute() {
    float s = 0;
    for (unsigned i = 0; i < a.size(); ++i) s += a[i] * b[i];
    *out = s;
    return true;
  }
};

class ScaledAdd : public Vertex {
public:
  InOut<Vector<float>> x;
  Input<Vector<float>> y;
  float k;
  void compute() {
    for (unsigned i = 0; i < x.size(); ++i) x[i] = x[i] + k * y[i];
  }
};

class IntMix : public Vertex {
public:
  Input<Vector<int>> a;
  Output<Vector<int>> out;
  Output<Vector<unsigned>> uout;
  void compute() {
    for (unsigned i = 0; i < a.size(); ++i) {
      int v = a[i];
      out[i] = (v * 7 + 3) / 5 - (v % 3) + (v << 2) - (v >> 1) + std::max(v, 10) - std::min(v, -10) + std::abs(v);
      uout[i] = (unsigned)v * 2654435761u ^ ((unsigned)v >> 3);
    }
  }
};

class FloatMix : public Vertex {
public:
  Input<Vector<float>> a;
  Output<Vector<float>> out;
  void compute() {
    for (unsigned i = 0; i < a.size(); ++i) {
      float v = a[i];
      float r = v > 0 ? std::sqrt(v) : -v / 3.0f;
      r += std::floor(v) * 0.5f - std::ceil(v) + std::fabs(v) * std::trunc(v);
      out[i] = std::min(r, 50.0f) + std::max(v, -2.0f) + (float)(int)(v * 4.0f);
    }
  }
};

class HalfAxpy : public Vertex {
public:
  Input<Vector<half>> x;
  InOut<Vector<half>> y;
  half k;
  void compute() {
    for (unsigned i = 0; i < x.size(); ++i) y[i] = k * x[i] + y[i];
  }
};

class Workers : public MultiVertex {
public:
  InOut<Vector<int>> d;
  void compute(unsigned w) {
    for (unsigned i = w; i < d.size(); i += numWorkers()) d[i] = d[i] * 3 + (int)w;
  }
};

// Elementwise float loops that popc gives a SIMD copy: compound
// assignments, unary minus, division and invariant locals, with a tail
// (37 elements).
class Elementwise : public Vertex {
public:
  InOut<Vector<float>> x;
  Input<Vector<float>> y;
  Output<Vector<float>> z;
  float k;
  void compute() {
    const float c = 0.75f;
    float a = k * 2.0f - c;
    for (unsigned i = 0; i < x.size(); ++i) {
      z[i] = -x[i] * a + y[i] / k;
      x[i] -= z[i] * c;
      x[i] *= y[i] - a;
      z[i] /= x[i] + 1.5f;
    }
  }
};

// Reductions that popc gives a check-free scalar copy (four iterations a
// trip, in source order): sums with `+=`, `-=` and `acc = acc + e` beside an
// elementwise store, and a tail (37 elements).
class Reductions : public Vertex {
public:
  Input<Vector<float>> a;
  Input<Vector<float>> b;
  Output<Vector<float>> y;
  Output<float> out;
  float k;
  bool compute() {
    float s = 0, t = 1.5f, u = -2;
    for (unsigned i = 0; i < a.size(); ++i) {
      s += k * a[i];
      y[i] = a[i] - b[i] / k;
      t -= y[i] * b[i];
      u = u + a[i] * a[i];
    }
    float d = 0;
    for (unsigned i = 0; i < b.size(); ++i) d += b[i];
    *out = s * 3 + t * 5 + u * 7 + d;
    return true;
  }
};

// Partial specialisation, static functions of class templates, functors
// with overloaded operator(), and operators on structs.
enum class Mode { SUB, REV };
template <Mode M, typename T> struct PickOp {
  static T fn(T a, T b) { return a - b; }
};
template <typename T> struct PickOp<Mode::REV, T> {
  static T fn(T a, T b) { return b - a * T(3); }
};
struct Lin {
  float s, t;
  float operator()(float x) const { return s * x + t; }
  int operator()(int x) const { return x * 3 - 1; }
  Lin operator+(const Lin &o) const { return Lin{s + o.s, t * o.t}; }
};
template <typename F, typename T> T applyF(F f, T x) { return f(x); }

template <Mode M, typename T> class SpecOps : public Vertex {
public:
  Input<Vector<T>> a;
  Input<Vector<T>> b;
  Output<Vector<T>> out;
  void compute() {
    Lin f{1.5f, -0.25f};
    Lin g = f + Lin{0.5f, 2.0f};
    for (unsigned i = 0; i < a.size(); ++i)
      out[i] = PickOp<M, T>::fn(a[i], b[i]) + applyF(g, a[i]);
  }
};
template class SpecOps<Mode::SUB, float>;
template class SpecOps<Mode::REV, float>;
template class SpecOps<Mode::REV, int>;

// std::array values: braced-list arguments, by-reference parameters,
// returned by value, fill() and size().
#include <array>
static std::array<unsigned, 3> mix(const std::array<unsigned, 3> &s, unsigned k) {
  std::array<unsigned, 3> r = s;
  for (unsigned i = 0; i < r.size(); ++i) r[i] = r[i] * 2654435761u + k;
  return r;
}
static void bump(std::array<unsigned, 3> &s) { s[1] += s[0] ^ s[2]; }
class Arrays : public Vertex {
public:
  Input<Vector<unsigned>> in;
  Output<Vector<unsigned>> out;
  void compute() {
    std::array<unsigned, 3> z;
    z.fill(7);
    for (unsigned i = 0; i + 2 < in.size(); ++i) {
      auto s = mix({in[i], in[i + 1], in[i + 2]}, z[i % 3]);
      bump(s);
      out[i] = s[0] + s[1] + s[2];
    }
  }
};

// Round to nearest, ties to even, and the bit builtins.
class Rounding : public Vertex {
public:
  Input<Vector<float>> a;
  Output<Vector<float>> out;
  Output<Vector<int>> bits;
  void compute() {
    for (unsigned i = 0; i < a.size(); ++i) {
      out[i] = std::nearbyint(a[i] * 50.0f) + rintf(a[i] * 2.5f) + std::nearbyint(double(a[i]) * 0.5);
      unsigned u = unsigned(int(a[i] * 1000.0f)) | 1u;
      bits[i] = __builtin_clz(u) * 1000 + __builtin_ctz(u << 3) * 10 + __builtin_popcount(u);
    }
  }
};

// IPU vector types: float2/half4/int2/short4/uchar4 read and written
// through pointers over edges, element-wise operators with broadcast,
// comparison masks, and the portable ipu:: helpers.
#include <ipu_vector_math>
float2 mulAdd(float2 a, float2 b, float k) { return a * b + k; }
class VecFloat : public Vertex {
public:
  Input<Vector<float>> a;
  Input<Vector<float>> b;
  Output<Vector<float>> out;
  Output<Vector<int>> mask;
  void compute() {
    const float2 *a2 = reinterpret_cast<const float2 *>(&a[0]);
    const float2 *b2 = reinterpret_cast<const float2 *>(&b[0]);
    float2 *o2 = reinterpret_cast<float2 *>(&out[0]);
    int2 *m2 = reinterpret_cast<int2 *>(&mask[0]);
    float4 acc = {0.0f, 0.0f, 0.0f, 0.0f};
    for (unsigned i = 0; i < a.size() / 2; ++i) {
      float2 x = a2[i];
      float2 y = -b2[i];
      float2 r = mulAdd(x, y, 1.5f) / (ipu::fabs(x) + 1.0f);
      r -= 0.25f * y;
      o2[i] = r + ipu::sqrt(ipu::fabs(y)) - ipu::exp(x / 8.0f) * ipu::rsqrt(ipu::fabs(y) + 1.0f);
      m2[i] = (x < y) + (x >= 0.0f) * 2 + __builtin_convertvector(x * 10.0f, int2) * 4;
      float4 t = {x[0], x[1], y[0], r[1]};
      acc += t * t;
    }
    out[a.size() - 1] = acc[0] + acc[1] + acc[2] - acc[3] + ipu::sigmoid(acc[3] * 1e-4f);
  }
};

half4 halfStep(half4 h, half k) { return h * k - h / half(3.0f); }
class VecHalf : public Vertex {
public:
  Input<Vector<half>> a;
  Output<Vector<half>> out;
  Output<Vector<short>> mask;
  void compute() {
    const half4 *a4 = reinterpret_cast<const half4 *>(&a[0]);
    half4 *o4 = reinterpret_cast<half4 *>(&out[0]);
    short4 *m4 = reinterpret_cast<short4 *>(&mask[0]);
    for (unsigned i = 0; i < a.size() / 4; ++i) {
      half4 h = a4[i];
      half4 s = halfStep(h, half(1.25f)) + half(2.0f);
      s *= h;
      o4[i] = ipu::fmax(s, -h);
      m4[i] = h > s;
    }
    half2 p = {a[0], a[1]};
    p = p + p * half(0.5f);
    out[a.size() - 1] = p[0] + p[1];
    const half4 *q = a4;
    half4 f0 = ipu::load_postinc(&q, 1);
    half4 f1 = ipu::load_postinc(&q, 2);
    out[a.size() - 2] = f0[1] + f1[2] - (*q)[3];
  }
};

class VecInt : public Vertex {
public:
  Input<Vector<int>> a;
  Input<Vector<unsigned short>> b;
  Output<Vector<int>> out;
  Output<Vector<int>> bytes;
  void compute() {
    const int2 *a2 = reinterpret_cast<const int2 *>(&a[0]);
    int2 *o2 = reinterpret_cast<int2 *>(&out[0]);
    for (unsigned i = 0; i < a.size() / 2; ++i) {
      int2 x = a2[i];
      int2 d = (x & 7) + 1;
      o2[i] = (x * 3 - 7) / d + (x % d) - (x >> 2) + ((x << 3) ^ ~x) - (x > 100);
    }
    const ushort4 *b4 = reinterpret_cast<const ushort4 *>(&b[0]);
    for (unsigned i = 0; i < b.size() / 4; ++i) {
      ushort4 u = b4[i] * 3 + 1;
      short4 s = {short(u[0]), short(u[1]), short(u[2]), short(u[3])};
      short4 m = u > ushort4{500, 600, 700, 800};
      s = (s - 400) | (m & 1);
      uchar4 c = uchar4{(unsigned char)s[0], (unsigned char)s[1], (unsigned char)s[2], (unsigned char)s[3]} + 200;
      for (unsigned j = 0; j < 4; ++j) bytes[4 * i + j] = c[j];
    }
  }
};

// GCC's vector attribute on typedefs, on either side of the name: g++
// builds its own vectors, popc the IPU vector type of that element type
// and count. A typedef inside a template takes its size from the template
// argument. (clang's ext_vector_type, which g++ ignores, is in popc's
// goldens.)
template <typename T> class VecAttr : public Vertex {
public:
  Input<Vector<T>> a;
  Output<Vector<T>> out;
  T k;
  void compute() {
    typedef T pair __attribute__((vector_size(2 * sizeof(T))));
    typedef T __attribute__((vector_size(4 * sizeof(T)))) quad;
    typedef pair *pairPtr;
    pairPtr o2 = reinterpret_cast<pairPtr>(&out[0]);
    quad acc{};
    for (unsigned i = 0; i + 4 <= a.size(); i += 4) {
      quad q{a[i], a[i + 1], a[i + 2]};
      q = q * k - quad{a[i + 3], a[i + 3], T(1), T(2)};
      acc += q;
      o2[i / 2] = pair{q[0], q[1]} + pair{q[2], q[3]};
    }
    out[a.size() - 1] = acc[0] - acc[1] + acc[2] * acc[3];
  }
};
template class VecAttr<float>;
template class VecAttr<int>;

// Pointers as integers: PopLibs' alignment tests read the low bits of an
// edge's address, then step down to an aligned address and back.
class AddrBits : public Vertex {
public:
  Input<Vector<float>> a;
  Output<Vector<float>> out;
  void compute() {
    const float *p = &a[1];
    std::uintptr_t bits = reinterpret_cast<std::uintptr_t>(p) & 7;
    const float *q = reinterpret_cast<const float *>(reinterpret_cast<std::uintptr_t>(p) & ~std::uintptr_t(7));
    out[0] = float(bits);
    out[1] = *q + q[2];
    std::ptrdiff_t both = reinterpret_cast<std::ptrdiff_t>(&a[0]) | reinterpret_cast<std::ptrdiff_t>(&out[0]);
    out[2] = (both & 3) == 0 ? 1.0f : 2.0f;
  }
};

// Four 32-bit elements (float4, int4, uint4): popc does + - * (and / for
// floats), unary minus and ~ as one host SIMD operation; each lane must
// match g++'s vectors.
class Vec4Ops : public Vertex {
public:
  Input<Vector<float>> a;
  Input<Vector<int>> b;
  Output<Vector<float>> out;
  Output<Vector<unsigned>> bits;
  void compute() {
    float4 acc = {0.5f, -0.0f, 1e30f, -3.0f};
    int4 iacc = {1, -2, 3, -4};
    uint4 uacc = {4000000000u, 1u, 0u, 0x80000000u};
    for (unsigned i = 0; i + 4 <= a.size(); i += 4) {
      float4 x = {a[i], a[i + 1], a[i + 2], a[i + 3]};
      int4 y = {b[i], b[i + 1], b[i + 2], b[i + 3]};
      acc = acc * x - x / (acc + 3.0f);
      acc /= 2.0f;
      acc -= x;
      iacc = iacc * 3 + y - iacc;
      uint4 u = {unsigned(b[i]), unsigned(b[i + 1]), 7u, 9u};
      uacc = uacc * u + uacc - 12345u;
      uacc += u * u;
    }
    float4 neg = -acc;
    int4 inv = ~iacc;
    int4 ineg = -iacc;
    uint4 uneg = -uacc;
    for (unsigned k = 0; k < 4; ++k) {
      out[k] = acc[k];
      out[4 + k] = neg[k];
      bits[k] = unsigned(iacc[k]) ^ uacc[k];
      bits[4 + k] = unsigned(inv[k]) + unsigned(ineg[k]) * 3u + uneg[k];
    }
  }
};

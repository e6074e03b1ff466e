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

// Kernels in the C++ that codelets outside PopLibs are written in,
// compiled by popc and by g++ -O2 against the stub header; the
// differential test compares their outputs bit for bit. One vertex per
// construct (or a few related ones), named after it.
#include <poplar/Vertex.hpp>
#include <array>
#include <cstddef>
using namespace poplar;

// A fixed-size vector whose element-wise operators call its own subscript
// explicitly (`this->operator[](i)`) and whose binary operators are
// friends defined in the class.
template <class T, size_t N> struct Small {
  std::array<T, N> v;
  T &operator[](size_t i) { return v[i]; }
  const T &operator[](size_t i) const { return v[i]; }
  Small &operator+=(const Small &o) {
    for (size_t i = 0; i < N; ++i) this->operator[](i) += o[i];
    return *this;
  }
  Small &operator*=(T k) {
    for (size_t i = 0; i < N; ++i) this->operator[](i) = this->operator[](i) * k;
    return *this;
  }
  friend Small operator-(const Small &a, const Small &b) {
    Small r;
    for (size_t i = 0; i < N; ++i) r[i] = a[i] - b[i];
    return r;
  }
  friend bool operator==(const Small &a, const Small &b) {
    for (size_t i = 0; i < N; ++i)
      if (a[i] != b[i]) return false;
    return true;
  }
  friend class Helper;
};

struct Acc {
  float total;
  Acc &operator+=(float x) { total += x; return *this; }
  float operator()(float x) const { return total * x; }
};

class ExplicitOperatorCalls : public Vertex {
public:
  Input<Vector<float>> a;
  Output<Vector<float>> out;
  bool compute() {
    for (unsigned i = 0; i + 2 < a.size(); i += 3) {
      Small<float, 3> x, y;
      for (unsigned j = 0; j < 3; ++j) {
        x.operator[](j) = a[i + j];
        y[j] = a[i + j] * 0.5f;
      }
      x.operator+=(y);
      x *= 2.0f;
      Small<float, 3> d = x - y;
      Small<float, 3> e = operator-(x, y);
      Acc acc{1.0f};
      acc.operator+=(d[0]);
      for (unsigned j = 0; j < 3; ++j) out[i + j] = (d == e ? acc.operator()(d[j]) : -1.0f) + d.operator[](j);
    }
    return true;
  }
};

// Tag dispatch by std::enable_if (an unnamed parameter whose type fails
// for the other tag), as in helpers with an IPU-only assembly version.
struct HardwareTag { static constexpr bool hardware = true; };
struct ModelTag { static constexpr bool model = true; };
template <class Tag, std::enable_if_t<Tag::hardware, bool> = true>
float axpy(float a, float x, float y) {
  asm volatile("" ::: "memory");
  return a * x + y;
}
template <class Tag, std::enable_if_t<Tag::model, bool> = true>
float axpy(float a, float x, float y) { return a * x + y; }
template <typename T, std::enable_if_t<std::is_integral<T>::value, int> = 0>
T twice(T x) { return x + x; }
template <typename T, typename = std::enable_if_t<std::is_floating_point<T>::value>>
T twice(T x) { return x * 2.5f; }
template <typename T>
typename std::enable_if<sizeof(T) == 4, T>::type bump(T x) { return x + 1; }
template <typename T>
typename std::enable_if<sizeof(T) == 2, T>::type bump(T x) { return x - 1; }

class EnableIfDispatch : public Vertex {
public:
  Input<Vector<float>> x;
  Input<Vector<int>> k;
  Output<Vector<float>> out;
  Output<Vector<int>> kout;
  bool compute() {
    for (unsigned i = 0; i + 1 < x.size() && i < k.size(); ++i) {
      out[i] = axpy<ModelTag>(twice(x[i]), x[i + 1], 0.25f);
      kout[i] = twice(k[i]) + bump(k[i]) + bump((short)k[i]);
    }
    return true;
  }
};

// Default arguments from a declaration the definition does not repeat,
// array members of a helper class, a class declared in a method.
int packed(int step, unsigned elems, unsigned chans = 8, int rows = -3);
int packed(int step, unsigned elems, unsigned chans, int rows) {
  return step * (int)elems - (int)chans + rows;
}
template <typename T, unsigned N> struct Window {
  T taps[N];
  T acc[2][N];
  void shift(T x) {
    for (unsigned i = N - 1; i > 0; --i) taps[i] = taps[i - 1];
    taps[0] = x;
    for (unsigned i = 0; i < N; ++i) acc[i % 2][i] += taps[i];
  }
};

class Declarations : public Vertex {
public:
  Input<Vector<int>> a;
  Output<Vector<int>> out;
  bool compute() {
    struct Span { int lo; int hi; };
    Window<int, 4> w{};
    for (unsigned i = 0; i < a.size(); ++i) {
      w.shift(a[i]);
      Span s{w.taps[0], w.taps[3]};
      out[i] = packed(s.lo, 3) + packed(s.hi, 2, 1) + w.acc[0][2] - w.acc[1][3];
    }
    return true;
  }
};

// Addresses of locals: a local pointer advanced through `T **` by helpers
// (as IPU-model ports of the post-incrementing intrinsics are written),
// scalars and structs written through pointers, and local arrays read
// back as wider words (little-endian, as on the IPU and the host).
template <class T> T pull(T const **p, int step) {
  T const *at = *p;
  (*p) += step;
  return *at;
}
template <class T> void push(T **p, T const &v, int step) {
  **p = v;
  (*p) += step;
}
inline void scaleInPlace(float *p, float k) { *p = *p * k + p[0]; }
struct Range { unsigned short lo, hi; };
inline void setRange(Range *r, unsigned short lo, unsigned short hi) { r->lo = lo; (*r).hi = hi; }

class LocalAddresses : public Vertex {
public:
  Input<Vector<float>> x;
  Input<Vector<unsigned short>> s;
  Output<Vector<float>> out;
  Output<Vector<unsigned>> packed;
  bool compute() {
    const float *from = &x[0];
    float *to = &out[0];
    for (unsigned i = 0; i < x.size() && i < out.size(); ++i) {
      float v = pull(&from, 1);
      scaleInPlace(&v, 0.75f);
      push(&to, v, 1);
    }
    for (unsigned i = 0; i + 1 < s.size() && i < packed.size(); ++i) {
      unsigned short pair[2];
      pair[0] = s[i];
      pair[1] = s[i + 1];
      Range r;
      setRange(&r, s[i + 1], s[i]);
      unsigned short *second = pair + 1;
      unsigned char bytes[4] = {1, 2, 3, (unsigned char)i};
      packed[i] = *reinterpret_cast<unsigned *>(pair) + *second +
                  reinterpret_cast<unsigned *>(&r)[0] + *reinterpret_cast<const unsigned *>(bytes) +
                  pair[i % 2];
    }
    return true;
  }
};

// Helper classes with a base: a pair type deriving from std::array, as
// IPU-model vector types are written, and a helper deriving from another
// helper, passed where its base is expected.
template <class T, size_t N> struct Vec : public std::array<T, N> {
  Vec &operator-=(const Vec &o) {
    for (size_t i = 0; i < N; ++i) this->operator[](i) -= o[i];
    return *this;
  }
  friend Vec operator+(const Vec &a, const Vec &b) {
    Vec r;
    for (size_t i = 0; i < N; ++i) r[i] = a[i] + b[i];
    return r;
  }
  T dot(const Vec &o) const {
    T s = 0;
    for (size_t i = 0; i < this->size(); ++i) s += (*this)[i] * o[i];
    return s;
  }
  template <unsigned K> T lane() const { return (*this)[K]; }
};
struct Tally { int n; int sum; void add(int x) { ++n; sum += x; } };
struct Clamped : Tally {
  int cap;
  void addClamped(int x) { add(x > cap ? cap : x); }
};
inline int mean10(const Tally &t) { return t.n ? 10 * t.sum / t.n : 0; }

class DerivedHelpers : public Vertex {
public:
  Input<Vector<float>> x;
  Input<Vector<int>> k;
  Output<Vector<float>> out;
  Output<Vector<int>> kout;
  bool compute() {
    for (unsigned i = 0; i + 3 < x.size() && i < out.size(); ++i) {
      Vec<float, 2> a{x[i], x[i + 1]};
      const Vec<float, 2> b{x[i + 2], x[i + 3]};
      Vec<float, 2> c = a + b;
      c -= a;
      a = {c.template lane<1>(), b[0]};
      out[i] = c.dot(b) + a.data()[1] + c.size() + a.template lane<0>();
    }
    Clamped t{{0, 0}, 500};
    for (unsigned i = 0; i < k.size() && i < kout.size(); ++i) {
      t.addClamped(k[i]);
      kout[i] = mean10(t) + t.cap;
    }
    return true;
  }
};

// Static data members: one copy per tile, shared by every vertex of the
// class and, in a MultiVertex, by its workers (which run in worker order
// here, so the last one sums what the others left).
class StaticPartials : public MultiVertex {
public:
  Input<Vector<float>> x;
  Output<Vector<float>> total;
  static float partial[6];
  static unsigned calls;
  void compute(unsigned wid) {
    float s = 0;
    for (unsigned i = wid; i < x.size(); i += numWorkers())
      s += x[i];
    partial[wid] = s;
    ++calls;
    if (wid == numWorkers() - 1) {
      float t = 0;
      for (unsigned w = 0; w < numWorkers(); ++w)
        t += partial[w];
      total[0] = t;
      total[1] = calls;
      total[2] = partial[0] - partial[5];
    }
  }
};
float StaticPartials::partial[6] = {-1.5f, 2};
unsigned StaticPartials::calls = 40;

class StaticTable : public Vertex {
public:
  Input<Vector<int>> k;
  Output<Vector<int>> out;
  static int seen[2][3];
  static short last;
  bool compute() {
    for (unsigned i = 0; i < k.size() && i < out.size(); ++i) {
      seen[i % 2][i % 3] += k[i];
      last = k[i];
      out[i] = seen[0][i % 3] - seen[1][(i + 1) % 3] + last;
    }
    return true;
  }
};
int StaticTable::seen[2][3] = {{1, 2, 3}, {4}};
short StaticTable::last;

// C's `typedef struct`: unnamed (the class takes the typedef's name),
// tagged with another name (both name it), tagged with the same name
// (GLM's `typedef struct type { … } type;`), and inside a class; and
// constructors declared `constexpr` or `inline`.
typedef struct {
  float lo, hi;
} Bounds;
typedef struct PairTag {
  int a, b;
} Pair2;
template <class T> struct Store {
  typedef struct type {
    T data[2];
  } type;
  type s;
};
// Constructors with specifiers (GLM writes `constexpr vec(…)`).
struct Cx {
  float a, b;
  constexpr Cx() : a(1), b(2) {}
  constexpr explicit Cx(float x) : a(x), b(-x) {}
  inline Cx(float x, float y) : a(x), b(y) {}
};
class TypedefStructs : public Vertex {
public:
  Input<Vector<float>> in;
  Output<Vector<float>> out;
  void compute() {
    Bounds r{in[0], in[1]};
    Pair2 p{int(in[2]), int(in[3])};
    PairTag q = p;
    q.b += 3;
    Store<float> st;
    st.s.data[0] = in[4];
    st.s.data[1] = in[5];
    Store<float>::type t = st.s;
    out[0] = r.hi - r.lo;
    out[1] = float(p.a + q.b);
    out[2] = t.data[0] * t.data[1];
    out[3] = Cx().a + Cx(in[6]).b + Cx(in[7], in[8]).a;
  }
};
// Constructor templates (GLM's `template <typename A, typename B> vec(A x,
// B y)` and its conversions from another vector type), deduced from the
// arguments; a class object of another class goes to the constructor, an
// object of the class itself is copied.
struct Ints2 {
  int x, y;
};
struct Vec2T {
  float x, y;
  template <typename A, typename B> constexpr Vec2T(A a, B b) : x(static_cast<float>(a)), y(static_cast<float>(b)) {}
  template <typename V> explicit Vec2T(const V &v) : x(static_cast<float>(v.x)), y(static_cast<float>(v.y) * 2) {}
};
class ConstructorTemplates : public Vertex {
public:
  Input<Vector<float>> in;
  Output<Vector<float>> out;
  void compute() {
    Vec2T a(int(in[0]), in[1]);
    Ints2 i{int(in[2]), int(in[3])};
    Vec2T b(i);
    Vec2T c(a);
    Vec2T d = Vec2T(int(in[4]) % 7, 0.5f);
    out[0] = a.x + a.y;
    out[1] = b.x - b.y;
    out[2] = c.x * c.y + d.x + d.y;
  }
};
// Constructors overloaded on their parameters' types, chosen as a call
// chooses among overloads (GLM's vectors have one per kind of argument);
// a local array given for a template's `const T *` decays, in a
// constructor as in a function.
template <typename T> float firstPlusLast(const T *p, int n) { return static_cast<float>(p[0] + p[n - 1]); }
struct Both {
  float x, y;
  Both(float s) : x(s), y(-s) {}
  Both(const Ints2 &i) : x(static_cast<float>(i.x)), y(static_cast<float>(i.y)) {}
  Both(float a, float b) : x(a), y(b) {}
  Both(Ints2 a, float k) : x(static_cast<float>(a.x) * k), y(static_cast<float>(a.y) + k) {}
  template <typename T> Both(const T *p, int n) : x(static_cast<float>(p[0])), y(static_cast<float>(p[n - 1])) {}
};
class OverloadedConstructors : public Vertex {
public:
  Input<Vector<float>> in;
  Output<Vector<float>> out;
  void compute() {
    Ints2 i{int(in[0]), int(in[1])};
    float local[3] = {in[2], in[3], in[4]};
    Both a(in[5]);
    Both b(i);
    Both c(in[6], in[7]);
    Both d(i, in[8]);
    Both e(local, 3);
    out[0] = a.x + a.y * 2;
    out[1] = b.x - b.y;
    out[2] = c.x * c.y;
    out[3] = d.x + d.y;
    out[4] = e.x - e.y;
    out[5] = firstPlusLast(local, 3);
  }
};

// Operator overloading and functors: operator() (overloaded, and as a
// member template), functor objects built with T{} and passed as template
// arguments, static functions of class templates chosen by partial
// specialisation (Op<..>::fn), methods using their object's fields,
// binary operators on structs, and functions returning structs,
// pointers and references.
#include <poplar/Vertex.hpp>
using namespace poplar;

enum class Kind { ADD, MAX, SCALE };

template <Kind K> struct Lib {};
template <> struct Lib<Kind::MAX> {
  template <typename F> F operator()(F x, F y) const { return x > y ? x : y + F(100); }
  int operator()(int x, int y) const { return x > y ? x : y; }
  unsigned operator()(unsigned x, unsigned y) const { return x > y ? x : y + 1000u; }
};

template <Kind K, typename T, typename A> struct OpFn {};
template <typename T, typename A> struct OpFn<Kind::ADD, T, A> {
  static T fn(T x, T y) { return x + y; }
};
template <typename T, typename A> struct OpFn<Kind::MAX, T, A> {
  static T fn(T x, T y) { return Lib<Kind::MAX>{}(x, y); }
};

struct Scaler {
  float k;
  float bias;
  float operator()(float x) const { return x * k + bias; }
  float twice(float x) const { return (*this)(x) + apply(x); }
  float apply(float x) const { return x * k; }
};

struct V2 {
  float x, y;
  V2 operator+(const V2 &o) const { return V2{x + o.x, y + o.y}; }
  V2 &operator+=(const V2 &o) { x += o.x; y += o.y; return *this; }
  float &at(int i) { if (i == 0) return x; return y; }
};
V2 operator*(V2 a, float s) { return V2{a.x * s, a.y * s}; }

template <typename F> float applyTo(F f, float v) { return f(v); }

template <Kind K, typename T> class Bin : public Vertex {
public:
  Input<Vector<T>> a;
  Input<Vector<T>> b;
  Output<Vector<T>> out;
  void compute() {
    for (unsigned i = 0; i < out.size(); ++i)
      out[i] = OpFn<K, T, void>::fn(a[i], b[i]);
  }
};
template class Bin<Kind::ADD, float>;
template class Bin<Kind::MAX, float>;
template class Bin<Kind::MAX, int>;
template class Bin<Kind::MAX, unsigned>;

class Objects : public Vertex {
public:
  Output<Vector<float>> out;
  float k;
  void compute() {
    Scaler s{k, 1.0f};
    out[0] = s(2.0f);
    out[1] = s.twice(3.0f);
    out[2] = applyTo(Scaler{2.0f, 0.5f}, 4.0f);
    V2 p{1.0f, 2.0f};
    V2 q = p + V2{10.0f, 20.0f};
    q += p;
    V2 r = q * 2.0f;
    r.at(1) = 99.0f;
    out[3] = r.x;
    out[4] = r.y;
    auto t = r;
    t.x = 0.0f;
    out[5] = r.x + t.x;
  }
};

// RUN Bin<Kind::ADD,float>
//   a = [1, 2]
//   b = [10, 20]
//   out = [0, 0]
// RUN Bin<Kind::MAX,float>
//   a = [1, 30]
//   b = [10, 20]
//   out = [0, 0]
// RUN Bin<Kind::MAX,int>
//   a = [1, 30]
//   b = [10, 20]
//   out = [0, 0]
// RUN Bin<Kind::MAX,unsigned int>
//   a = [1, 30]
//   b = [10, 20]
//   out = [0, 0]
// RUN Objects
//   out = [0, 0, 0, 0, 0, 0]
//   k = 3

// Helper classes with a base: a small vector type deriving from
// std::array (its elements, subscript, size() and data() inherited;
// `this->operator[](i)` in its own operators; braced initialisers filling
// the base array), and a helper class deriving from another, whose
// fields and methods it uses as its own and which converts to its base
// when passed to a function taking the base. Also a member template
// called with explicit arguments (`v.template at<1>()`) and a braced list
// assigned to an object.
#include <poplar/Vertex.hpp>
#include <array>
#include <cstddef>
using namespace poplar;

template <class T, size_t N> struct Lanes : public std::array<T, N> {
  Lanes &operator+=(const Lanes &o) {
    for (size_t i = 0; i < N; ++i) this->operator[](i) += o[i];
    return *this;
  }
  friend Lanes operator*(const Lanes &a, const Lanes &b) {
    Lanes r;
    for (size_t i = 0; i < N; ++i) r[i] = a[i] * b[i];
    return r;
  }
  template <unsigned K> T at() const { return (*this)[K]; }
  T sum() const {
    T s = 0;
    for (size_t i = 0; i < this->size(); ++i) s += (*this)[i];
    return s;
  }
};

struct Counter {
  int count;
  int step;
  void tick() { count += step; }
  int twice() const { return 2 * count; }
};
struct Limited : Counter {
  int limit;
  void tickUpTo() {
    tick();
    if (count > limit) count = limit;
  }
};
int reading(const Counter &c) { return c.twice() + c.step; }

class Inherits : public Vertex {
public:
  Input<Vector<float>> in;
  Output<Vector<float>> out;
  Output<Vector<int>> ints;
  bool compute() {
    Lanes<float, 2> acc{0.0f, 0.0f};
    for (unsigned i = 0; i + 1 < in.size(); i += 2) {
      const Lanes<float, 2> v{in[i], in[i + 1]};
      acc += v * v;
    }
    out[0] = acc[0];
    out[1] = acc.sum();
    out[2] = *acc.data() + acc.size();
    acc = {acc.template at<1>(), 0.5f};
    out[3] = acc[0] + acc[1];
    Limited l{{1, 3}, 8};
    for (int k = 0; k < 4; ++k) l.tickUpTo();
    ints[0] = l.count;
    ints[1] = reading(l);
    ints[2] = l.twice() + l.limit;
    return true;
  }
};
// RUN Inherits
//   in = [1.0, 2.0, 3.0, 4.0]
//   out = [0.0, 0.0, 0.0, 0.0]
//   ints = [0, 0, 0]

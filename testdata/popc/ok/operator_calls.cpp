// C++ as codelets outside PopLibs write it: member operators called by
// name (`this->operator[](i)`, `a.operator+=(b)`, `operator-(a, b)`),
// friends defined in a class template and found through their operands,
// the template's own name used without arguments inside it, the
// function objects of <functional>, and <poplar/FieldTypes.hpp>.
#include <poplar/Vertex.hpp>
#include <poplar/FieldTypes.hpp>
#include <array>
#include <functional>
#include <memory>
using namespace poplar;

template <class T, unsigned N> struct Vec {
  std::array<T, N> v;
  T &operator[](unsigned i) { return v[i]; }
  const T &operator[](unsigned i) const { return v[i]; }
  Vec &operator+=(const Vec &o) {
    for (unsigned i = 0; i < N; ++i) this->operator[](i) += o[i];
    return *this;
  }
  template <class F> Vec map(F f) const {
    Vec r;
    for (unsigned i = 0; i < N; ++i) r[i] = f(v[i], v[(i + 1) % N]);
    return r;
  }
  friend Vec operator-(const Vec &a, const Vec &b) {
    Vec r;
    for (unsigned i = 0; i < N; ++i) r.operator[](i) = a[i] - b[i];
    return r;
  }
  friend bool operator<(const Vec &a, const Vec &b) { return a[0] < b[0]; }
  friend struct Other;
};

class OperatorCalls : public Vertex {
public:
  Input<Vector<int, VectorLayout::ONE_PTR>> a;
  Output<Vector<int>> out;
  void compute() {
    Vec<int, 3> x, y;
    for (unsigned i = 0; i < 3; ++i) {
      x.operator[](i) = a[i];
      y[i] = 10 * (i + 1);
    }
    x.operator+=(y);
    Vec<int, 3> d = operator-(x, y) - y;
    Vec<int, 3> m = d.map(std::multiplies<int>());
    out[0] = d[0];
    out[1] = d[1];
    out[2] = m[2];
    out[3] = operator<(y, x) + 2 * (x < y) + std::greater<int>()(4, 3) * 4;
  }
};

// RUN OperatorCalls
//   a = [1, 2, 3]
//   out = [0, 0, 0, 0]

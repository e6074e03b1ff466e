// Functions as values (`const auto f = name<args>;` then `f(...)`), and
// `decltype(name)` of a local as a declared type.
#include <poplar/Vertex.hpp>
using namespace poplar;

template <typename T, bool twice> static void fill(Output<Vector<T>> &out, T v) {
  for (unsigned i = 0; i < out.size(); ++i) out[i] = twice ? v + v : v;
}
static int plusOne(int x) { return x + 1; }

template <typename T> class F : public Vertex {
public:
  Output<Vector<T>> out;
  T v;
  void compute() {
    const auto function = fill<T, true>;
    decltype(v) w = v * T(3);
    function(out, w);
    auto g = plusOne;
    out[0] = g(int(out[0]));
  }
};
template class F<float>;

// RUN F<float>
//   out = [0, 0]
//   v = 1.5

// `c ? p : q` of pointers, and `decltype(f(x))` of a call (its declared
// return type; the call is not run).
template <typename T> struct Wide { using type = T; };
template <> struct Wide<short> { using type = int; };
template <typename T> typename Wide<T>::type widen(T x) { return x; }
class P : public Vertex {
public:
  Input<Vector<short>> a;
  Input<Vector<short>> b;
  Output<Vector<int>> out;
  unsigned pick;
  void compute() {
    auto src = pick == 0 ? &a[0] : &b[1];
    short s = src[0];
    using W = decltype(widen(s));
    W big = W(s) * 100000;
    out[0] = big / 1000;
    out[1] = sizeof(W);
    auto row = pick == 0 ? a : b;
    out[2] = row[0];
  }
};
// RUN P
//   a = [7, 8]
//   b = [9, 10]
//   out = [0, 0, 0]
//   pick = 1

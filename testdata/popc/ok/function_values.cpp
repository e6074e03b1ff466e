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

// Constants and values that live in compute(): local constexpr/const
// scalars as array bounds, in static_assert and if constexpr; sizeof of an
// edge element; std::is_same<..>() and {} as values; `auto *p = &in[i]`;
// template deduction from pointers (iterators) with pointer parameters
// that are variables of their own; ++ on a scalar InOut edge; a Vector
// field that is not an edge (read-only data).
#include <poplar/Vertex.hpp>
#include <type_traits>
using namespace poplar;
template <typename BIter> static void rev(BIter b, BIter e) {
  while (b < e) { --e; auto t = *b; *b = *e; *e = t; ++b; }
}
template <typename T> class K : public Vertex {
public:
  Input<Vector<T>> in;
  Output<Vector<T>> out;
  InOut<unsigned> n;
  const Vector<unsigned> offs;
  void compute() {
    constexpr unsigned two = 2;
    const unsigned three = two + 1;
    T tmp[three][two];
    static_assert(three == 3, "three");
    constexpr bool sz = sizeof(in[0]) == sizeof(T);
    static_assert(sz, "sizeof edge");
    if constexpr (std::is_same<T, float>() || std::is_same<T, int>{}) {
      out[0] = T(three);
    } else {
      out[0] = T(0);
    }
    tmp[2][1] = in[1];
    auto *p = &in[1];
    out[1] = *p * tmp[2][1] + offs[1];
    rev(out.begin(), out.begin() + out.size());
    ++n;
    n++;
  }
};
template class K<float>;
template class K<short>;

// RUN K<float>
//   in = [1.5, 2, 3]
//   out = [0, 0, 0]
//   n = 7
//   offs = [0, 10]
// RUN K<short>
//   in = [1, 2, 3]
//   out = [0, 0, 0]
//   n = 7
//   offs = [0, 10]

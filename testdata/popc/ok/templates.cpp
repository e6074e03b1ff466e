// Templates: type and non-type parameters, defaults, explicit instantiation,
// full specialisation, constexpr, if constexpr, static_assert, type traits.
#include <poplar/Vertex.hpp>
#include <type_traits>
#include <limits>
using namespace poplar;

namespace popops {
template <typename T> constexpr T square(T x) { return x * x; }
constexpr int fact(int n) { int r = 1; for (int i = 2; i <= n; ++i) r *= i; return r; }
static_assert(fact(5) == 120, "fact");

template <typename T, unsigned N = 2>
class Scale : public Vertex {
public:
  Input<Vector<T>> in;
  Output<Vector<T>> out;
  T k;
  bool compute() {
    static_assert(N > 0, "N must be positive");
    for (unsigned i = 0; i < in.size(); ++i) {
      if constexpr (std::is_integral<T>::value) {
        out[i] = in[i] * k + N;
      } else {
        out[i] = in[i] * k * square<T>(T(N));
      }
    }
    return true;
  }
};
template class Scale<float>;
template class Scale<int, 3>;

template <typename T> class Pick : public Vertex {
public:
  Output<T> out;
  void compute() { *out = std::numeric_limits<T>::max(); }
};
template <> class Pick<int> : public Vertex {
public:
  Output<int> out;
  void compute() { *out = fact(4); }
};
template class Pick<float>;
template class Pick<int>;
} // namespace popops

// RUN popops::Scale<float,2>
//   in = [1, 2, 3]
//   out = [0, 0, 0]
//   k = 0.5
// RUN popops::Scale<int,3>
//   in = [1, 2, 3]
//   out = [0, 0, 0]
//   k = 10
// RUN popops::Pick<float>
//   out = [0]
// RUN popops::Pick<int>
//   out = [0]
// INSTANTIATE popops::Scale< half , 4u>
// INSTANTIATE popops::Scale<unsigned>
// RUN popops::Scale<half,4>
//   in = [1, 2.5, 3]
//   out = [0, 0, 0]
//   k = 0.1
// RUN popops::Scale<unsigned int,2>
//   in = [1, 2, 3]
//   out = [0, 0, 0]
//   k = 4294967295

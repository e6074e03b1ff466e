// Constructor templates, deduced from each construction's arguments: two
// parameters of their own types, a conversion from another class (GLM's
// vectors convert this way), and beside them the copy of an object of the
// class itself, which stays a copy.
#include <poplar/Vertex.hpp>
using namespace poplar;

struct Pixel {
  int r, g;
};

template <typename T> struct Pair {
  T first, second;
  template <typename A, typename B> Pair(A a, B b) : first(static_cast<T>(a)), second(static_cast<T>(b)) {}
  template <typename Other> explicit Pair(const Other &o) : first(static_cast<T>(o.r)), second(static_cast<T>(o.g) + 1) {}
  T sum() const { return first + second; }
};

template <typename T> class Mix : public Vertex {
public:
  Input<Vector<T>> in;
  Output<Vector<T>> out;
  bool compute() {
    Pair<T> a(in[0], 2);
    Pixel px{3, 4};
    Pair<T> b(px);
    Pair<T> c(a);
    out[0] = a.sum();
    out[1] = b.sum();
    out[2] = c.first * c.second;
    return true;
  }
};

template class Mix<float>;
template class Mix<int>;
// RUN Mix<float>
//   in = [1.5]
//   out = [0, 0, 0]
// RUN Mix<int>
//   in = [-7]
//   out = [0, 0, 0]

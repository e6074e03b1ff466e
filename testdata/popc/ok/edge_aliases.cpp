// Edge types chosen through std::conditional in an alias template (an
// in-place variant updates its input, the other writes an output), and
// an edge passed by reference to a helper function.
#include <poplar/Vertex.hpp>
#include <type_traits>
using namespace poplar;

template <typename T, bool inPlace>
using OutEdge = typename std::conditional<inPlace, InOut<Vector<T>>, Output<Vector<T>>>::type;

template <typename T> static void scale(InOut<Vector<T>> &v, T k) {
  for (unsigned i = 0; i < v.size(); ++i) v[i] *= k;
}

template <typename T, bool inPlace> class Scale : public Vertex {
public:
  Input<Vector<T>> in;
  OutEdge<T, inPlace> out;
  T k;
  void compute() {
    if constexpr (inPlace) {
      scale(out, k);
    } else {
      for (unsigned i = 0; i < in.size(); ++i) out[i] = in[i] * k;
    }
  }
};
template class Scale<float, true>;
template class Scale<int, false>;

// Vector types as arguments of alias templates: a namespace one and a
// member one, both choosing the direction.
template <typename T, bool upd>
using OutOf = typename std::conditional<upd, InOut<T>, Output<T>>::type;
template <typename T, bool upd> class Copy : public Vertex {
public:
  template <typename E> using Out = typename std::conditional<upd, InOut<E>, Output<E>>::type;
  Input<Vector<T>> in;
  OutOf<Vector<T, ONE_PTR>, upd> a;
  Out<Vector<T>> b;
  void compute() {
    for (unsigned i = 0; i < in.size(); ++i) {
      a[i] = in[i];
      b[i] = upd ? b[i] + in[i] : in[i];
    }
  }
};
template class Copy<int, true>;

// RUN Copy<int,true>
//   in = [1, 2]
//   a = [0, 0]
//   b = [10, 20]
// RUN Scale<float,true>
//   in = [0]
//   out = [1, 2, 3]
//   k = 1.5
// RUN Scale<int,false>
//   in = [1, 2, 3]
//   out = [0, 0, 0]
//   k = 4

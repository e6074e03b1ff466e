// Class-template partial specialisation: the most specialised matching
// specialisation is instantiated (full beats partial beats primary), with
// its own fields and compute; patterns deduce through pointers and
// template-ids.
#include <poplar/Vertex.hpp>
using namespace poplar;

/* The primary template: adds one. */
template <class T, bool B> struct V : public Vertex {
  Input<Vector<T>> in;
  Output<Vector<T>> out;
  void compute() {
    for (unsigned i = 0; i < in.size(); ++i) out[i] = in[i] + 1;
  }
};
// Scales by a field only this specialisation has.
template <class T> struct V<T, true> : public Vertex {
  T k;
  Input<Vector<T>> in;
  Output<Vector<T>> out;
  void compute() {
    for (unsigned i = 0; i < in.size(); ++i) out[i] = in[i] * k;
  }
};
template <> struct V<int, true> : public Vertex {
  Output<Vector<int>> out;
  void compute() { out[0] = 42; }
};
template <class T> struct V<T *, false> : public Vertex {
  Output<Vector<int>> out;
  void compute() { out[0] = sizeof(T); }
};

template <class T, unsigned N> struct Box { T v; };
template <class A, class B> struct W : public Vertex {
  Output<Vector<int>> out;
  void compute() { out[0] = 0; }
};
template <class T, unsigned N> struct W<Box<T, N>, T> : public Vertex {
  Output<Vector<int>> out;
  void compute() { out[0] = N; }
};
template <unsigned N> struct W<Box<float, N>, float> : public Vertex {
  Output<Vector<int>> out;
  void compute() { out[0] = N * 100; }
};

template class V<float, false>;
template class V<float, true>;
template class V<int, true>;
template class V<short *, false>;
template class W<Box<int, 3>, int>;
template class W<Box<int, 3>, float>;
template class W<Box<float, 5>, float>;

// RUN V<float,false>
//   in = [1, 2]
//   out = [0, 0]
// RUN V<float,true>
//   k = 3
//   in = [1, 2]
//   out = [0, 0]
// RUN V<int,true>
//   out = [0]
// RUN V<short *,false>
//   out = [0]
// RUN W<Box<int,3>,int>
//   out = [0]
// RUN W<Box<int,3>,float>
//   out = [9]
// RUN W<Box<float,5>,float>
//   out = [0]

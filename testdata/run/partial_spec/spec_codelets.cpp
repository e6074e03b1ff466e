// A class template with a partial specialisation V<T, true> and a full
// specialisation V<int, true>: each instantiation gets the fields and
// compute of the most specialised match.
#include <poplar/Vertex.hpp>
using namespace poplar;

/* Primary: out = in + 1. */
template <class T, bool B> struct V : public Vertex {
  Input<Vector<T>> in;
  Output<Vector<T>> out;
  void compute() {
    for (unsigned i = 0; i < in.size(); ++i)
      out[i] = in[i] + 1;
  }
};

/* Partial: out = in * scale, with a field the primary lacks. */
template <class T> struct V<T, true> : public Vertex {
  Input<Vector<T>> in;
  Output<Vector<T>> out;
  T scale;
  void compute() {
    for (unsigned i = 0; i < in.size(); ++i)
      out[i] = in[i] * scale;
  }
};

/* Full: out = -in. */
template <> struct V<int, true> : public Vertex {
  Input<Vector<int>> in;
  Output<Vector<int>> out;
  void compute() {
    for (unsigned i = 0; i < in.size(); ++i)
      out[i] = -in[i];
  }
};

template class V<float, false>;
template class V<float, true>;
template class V<int, false>;
template class V<int, true>;

// Vectors of one-element edges (`Vector<Input<T>>`): each item is its own
// edge, anywhere in tile memory. Indexing gives the edge: read through it,
// dereference it, pass it by value; `size()` only where the layout stores a
// count. An `Output` item is written like a scalar edge.
#include <poplar/Vertex.hpp>
using namespace poplar;

template <typename T> struct Scale {
  T operator()(T x, T k) const { return x * k; }
};

template <typename T> static T addAll(const T *p, unsigned n, T k) {
  T s = 0;
  for (unsigned i = 0; i < n; ++i) s += p[i] + k;
  return s;
}

template <typename T> class PerRow : public MultiVertex {
public:
  Vector<Input<Vector<T>>> rows;
  Vector<Input<T>, VectorLayout::ONE_PTR> factor;
  Vector<Output<T>> total;
  void compute(unsigned wid) {
    for (unsigned r = wid; r < rows.size(); r += numWorkers()) {
      T k = factor[r];
      total[r] = addAll(&rows[r][0], rows[r].size(), Scale<T>{}(k, T(2)));
    }
  }
};
template class PerRow<float>;
template class PerRow<int>;

class Picks : public Vertex {
public:
  Vector<Input<unsigned short>> picks;
  Vector<InOut<int>> hits;
  Output<unsigned> seen;
  void compute() {
    unsigned n = 0;
    for (unsigned i = 0; i < picks.size(); ++i) {
      n += *picks[i];
      *hits[i] += picks[i] > 2 ? 100 : -1;
    }
    *seen = n + hits.size() * 1000;
  }
};
// RUN PerRow<float>
//   rows = [[1, 2], [3], [], [0.5, 0.25]]
//   factor = [1, 2, 3, 4]
//   total = [0, 0, 0, 0]
// RUN PerRow<int>
//   rows = [[1, 2, 3], [10]]
//   factor = [-1, 5]
//   total = [7, 7]
// RUN Picks
//   picks = [1, 7, 3]
//   hits = [5, 6, 7]
//   seen = [0]

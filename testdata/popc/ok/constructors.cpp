// Constructors of helper classes, inlined like methods: member
// initialisers (parentheses or braces), a body that does work, default
// arguments, temporaries built by `T{…}`, and reference members bound to
// what the constructor is given (a vertex's edge, a local pointer) and used
// by the methods, as PopLibs' heap views do.
#include <poplar/Vertex.hpp>
using namespace poplar;

struct Range {
  Range(unsigned lo, unsigned hi, unsigned step = 1) : lo(lo), hi{hi}, step(step) {
    if (this->hi < this->lo) this->hi = this->lo;
    count = (this->hi - this->lo + step - 1) / step;
  }
  unsigned lo, hi, step, count;
};

// Orders `idx` by the values it indexes, in place: a view, not a copy.
template <typename Idx, typename Data> class SortedView {
public:
  SortedView(Idx &indices, Data &values, unsigned n) : idx(indices), data(values), n(n) {}
  Idx &idx;
  Data &data;
  unsigned n;
  bool before(unsigned a, unsigned b) const { return data[idx[a]] < data[idx[b]]; }
  void sort() {
    for (unsigned i = 1; i < n; ++i)
      for (unsigned j = i; j > 0 && before(j, j - 1); --j) std::swap(idx[j], idx[j - 1]);
  }
  unsigned smallest() const { return idx[0]; }
};

template <typename T> class Ranked : public Vertex {
public:
  Input<Vector<T>> values;
  Output<Vector<unsigned>> order;
  Output<unsigned> stepped;
  void compute() {
    unsigned *out = &order[0];
    for (unsigned i = 0; i < order.size(); ++i) out[i] = i;
    SortedView<decltype(out), decltype(values)> view{out, values, order.size()};
    view.sort();
    Range r(2, values.size(), 3);
    *stepped = r.count * 100 + Range{5, 1}.count * 10 + view.smallest();
  }
};
template class Ranked<float>;
template class Ranked<int>;
// RUN Ranked<float>
//   values = [2.5, -1, 7, 0.5, 3]
//   order = [0, 0, 0, 0, 0]
//   stepped = [0]
// RUN Ranked<int>
//   values = [4, 3, 9, 1, 1, 0, 8, 2]
//   order = [0, 0, 0, 0, 0, 0, 0, 0]
//   stepped = [0]

// Declarations as codelets outside PopLibs (and PopLibs' poplin) write
// them: default arguments given by an earlier declaration and not by the
// definition, array members of helper classes (one and two dimensions),
// and classes declared inside a function or a vertex's method, which may
// name the vertex's member types.
#include <poplar/Vertex.hpp>
using namespace poplar;

int stride(int step, unsigned elems, unsigned chans = 4, int rows = 0);
int stride(int step, unsigned elems, unsigned chans, int rows) {
  return step * (int)elems + (int)chans * 10 + rows * 100;
}

template <typename T, unsigned N> struct Ring {
  T slots[N];
  T grid[2][N];
  unsigned head;
  void push(T x) {
    slots[head % N] = x;
    grid[head % 2][head % N] = x + x;
    ++head;
  }
};

int pairSum(int a, int b) {
  struct Pair { int x, y; };
  Pair p{a, b};
  return p.x + 2 * p.y;
}

template <bool Wide> class Decls : public Vertex {
public:
  using Offset = typename std::conditional<Wide, int, short>::type;
  Input<Vector<int>> a;
  Output<Vector<int>> out;
  void compute() {
    struct Entry { Offset off; Offset len; };
    Entry e{(Offset)a[0], (Offset)a[1]};
    Ring<int, 3> r{};
    for (unsigned i = 0; i < 4; ++i) r.push(a[i]);
    out[0] = stride(e.off, e.len);
    out[1] = stride(e.off, e.len, 2);
    out[2] = r.slots[0] + r.slots[1] * 10 + r.grid[1][0] * 100;
    out[3] = pairSum(a[2], a[3]) + (int)sizeof(Entry);
  }
};
template class Decls<true>;
template class Decls<false>;

// RUN Decls<true>
//   a = [1, 2, 3, 4]
//   out = [0, 0, 0, 0]
// RUN Decls<false>
//   a = [1, 2, 3, 4]
//   out = [0, 0, 0, 0]

// Edge kinds and layouts: scalar in/out/inout, SPAN and ONE_PTR vectors,
// vector lists (both spellings), plain fields (const and mutable),
// MultiVertex with worker ids, SupervisorVertex, pointers into tile memory.
#include <poplar/Vertex.hpp>
using namespace poplar;

class Lists : public Vertex {
public:
  Vector<Input<Vector<float>>> ins;
  VectorList<float, DELTAN> other;
  Output<Vector<float, ONE_PTR>> sums;
  InOut<unsigned> calls;
  const float bias;
  unsigned runs;
  bool compute() {
    for (unsigned j = 0; j < ins.size(); ++j) {
      float s = bias;
      for (unsigned i = 0; i < ins[j].size(); ++i) s += ins[j][i];
      for (auto v : other[j]) s += v * 100;
      sums[j] = s;
    }
    *calls += 1;
    ++runs;
    return ins.size() > 0;
  }
};

class Workers : public MultiVertex {
public:
  InOut<Vector<int>> data;
  void compute(unsigned wid) {
    for (unsigned i = wid; i < data.size(); i += numWorkers()) data[i] = data[i] * 10 + wid;
  }
};

class Super : public SupervisorVertex {
public:
  Input<Vector<short>> in;
  Output<Vector<unsigned short, SPAN, 4>> out;
  auto compute() -> bool {
    const short *p = &in[0];
    const short *e = in.end();
    unsigned short *o = &out[0];
    while (p != e) { *o++ = *p++ + 1; }
    auto q = reinterpret_cast<const unsigned short *>(&in[0]);
    out[0] = q[1];
    return true;
  }
};
// RUN Lists
//   ins = [[1, 2], [3], []]
//   other = [[1], [], [2, 2]]
//   sums = [0, 0, 0]
//   calls = [5]
//   bias = 0.25
//   runs = 7
// RUN Lists
//   ins = []
//   other = []
//   sums = [0]
//   calls = [0]
// RUN Workers
//   data = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9]
// RUN Super
//   in = [1, -2, 3]
//   out = [0, 0, 0]

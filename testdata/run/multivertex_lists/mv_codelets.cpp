// A MultiVertex (one call per worker) and a vector-list vertex.
#include <poplar/Vertex.hpp>
using namespace poplar;

class WorkerIds : public MultiVertex {
public:
  Output<Vector<int>> out;
  void compute(unsigned workerId) {
    for (unsigned i = workerId; i < out.size(); i += numWorkers())
      out[i] = workerId * 10 + i;
  }
};

class Cat : public Vertex {
public:
  Vector<Input<Vector<float>>> ins;
  Output<Vector<float, ONE_PTR>> out;
  void compute() {
    unsigned n = 0;
    for (unsigned j = 0; j < ins.size(); ++j) {
      for (unsigned i = 0; i < ins[j].size(); ++i) {
        out[n++] = ins[j][i];
      }
    }
  }
};

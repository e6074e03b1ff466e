// Vectors of one-element edges: a vertex reads single elements picked from
// tensors anywhere in the graph and writes single elements back.
#include <poplar/Vertex.hpp>
using namespace poplar;

class Gather : public Vertex {
public:
  Vector<Input<float>> picks;
  Vector<Input<float>, ONE_PTR> weights;
  Vector<Output<float>> out;
  void compute() {
    float acc = 0;
    for (unsigned i = 0; i < picks.size(); ++i) {
      acc += picks[i] * weights[i];
      out[i] = acc;
    }
  }
};

class Bump : public Vertex {
public:
  Vector<InOut<int>> counters;
  Input<int> step;
  void compute() {
    for (unsigned i = 0; i < counters.size(); ++i) *counters[i] += *step * (i + 1);
  }
};

// A vertex's constructor cannot do work: the graph, not code, sets its
// fields (declared-only, defaulted and empty ones are accepted and mean
// nothing; helper classes may have constructors that do work).
#include <poplar/Vertex.hpp>
using namespace poplar;
class Scaled : public Vertex {
public:
  Scaled() = default;
  Scaled(int k) : factor(k) {}
  int factor;
  Output<int> out;
  void compute() { *out = factor; }
};

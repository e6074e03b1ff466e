// With -DNDEBUG, assert does nothing and its argument is not evaluated
// (the count below stays 0); assert_on.cpp is the same without it.
// ARGS -DNDEBUG
#include <poplar/Vertex.hpp>
#include <cassert>
using namespace poplar;
class A : public Vertex {
public:
  Input<Vector<int>> in;
  InOut<int> n;
  void compute() {
    assert(in[0] > 100 && ++*n > 0);
  }
};
// RUN A
//   in = [1]
//   n = [0]

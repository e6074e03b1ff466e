// Without -DNDEBUG, a failing assert traps (assert_ndebug.cpp is the same
// with -DNDEBUG, where it does nothing).
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

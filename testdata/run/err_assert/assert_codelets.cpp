// Asserts that every element is positive.
#include <poplar/Vertex.hpp>
#include <cassert>
using namespace poplar;

class CheckPositive : public Vertex {
public:
  Input<Vector<float>> in;
  void compute() {
    for (unsigned i = 0; i < in.size(); ++i)
      assert(in[i] > 0);
  }
};

// Fails when its input is negative.
#include <poplar/Vertex.hpp>
using namespace poplar;

class CheckPositive : public Vertex {
public:
  Input<Vector<int>> in;
  bool compute() {
    for (unsigned i = 0; i < in.size(); ++i)
      if (in[i] < 0)
        return false;
    return true;
  }
};

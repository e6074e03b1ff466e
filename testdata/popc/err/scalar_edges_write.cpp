// Each item of a `Vector<Input<T>>` is a const edge, however it is reached.
#include <poplar/Vertex.hpp>
using namespace poplar;
class Clear : public Vertex {
public:
  Vector<Input<int>> flags;
  void compute() {
    for (unsigned i = 0; i < flags.size(); ++i) *flags[i] = 0;
  }
};

// A ONE_PTR vector of one-element edges stores no count: the graph fixes it.
#include <poplar/Vertex.hpp>
using namespace poplar;
class Sum : public Vertex {
public:
  Vector<Input<float>, VectorLayout::ONE_PTR> parts;
  Output<float> out;
  void compute() {
    float s = 0;
    for (unsigned i = 0; i < parts.size(); ++i) s += parts[i];
    *out = s;
  }
};

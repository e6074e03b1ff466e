// A vector of vector lists would be three levels of vectors.
#include <poplar/Vertex.hpp>
using namespace poplar;
class Deep : public Vertex {
public:
  Vector<Input<VectorList<float, DELTAN>>> lists;
  void compute() {}
};

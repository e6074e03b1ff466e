// SupervisorVertexIf takes one compile-time condition.
#include <poplar/Vertex.hpp>
using namespace poplar;
int runtimeValue();
class V : public SupervisorVertexIf<runtimeValue() == 1> {
public:
  Output<int> out;
  void compute() { *out = 1; }
};

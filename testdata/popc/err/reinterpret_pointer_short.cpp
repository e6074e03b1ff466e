// A pointer reinterpreted as an integer too narrow for a tile address.
#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  Input<Vector<float>> in;
  Output<unsigned short> out;
  void compute() { *out = reinterpret_cast<unsigned short>(&in[0]); }
};

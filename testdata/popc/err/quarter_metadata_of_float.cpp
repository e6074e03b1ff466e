// Only edges of quarter carry metadata.
#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  Input<Vector<float>> in;
  Output<float> out;
  void compute() { *out = toFloat(quarter(1), unpackMetadata(in.getMetadata())); }
};

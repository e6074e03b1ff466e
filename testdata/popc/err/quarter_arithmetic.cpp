// quarter has no arithmetic and no conversions: its value depends on the
// metadata, so a plain cast is an error pointing at toFloat/toQuarter.
#include <poplar/Vertex.hpp>
using namespace poplar;
class V : public Vertex {
public:
  Input<Vector<quarter>> in;
  Output<float> out;
  void compute() { *out = static_cast<float>(in[0]); }
};

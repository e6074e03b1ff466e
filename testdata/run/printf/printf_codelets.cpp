// printf from codelets: output is collected per vertex and printed in tile
// order, then vertex order, whatever the host thread count.
#include <poplar/Vertex.hpp>
#include <print.h>
using namespace poplar;

class Report : public Vertex {
public:
  Input<Vector<float>> in;
  unsigned id;
  bool compute() {
    float s = 0;
    for (unsigned i = 0; i < in.size(); ++i)
      s += in[i];
    printf("vertex %u: n=%u sum=%g mean=%.3f\n", id, (unsigned)in.size(), s, s / in.size());
    return true;
  }
};

// Reads far past the end of its input: a trap, reported with the tile, the
// vertex, the compute set, the step and (compiled with -g) this line.
#include <poplar/Vertex.hpp>
using namespace poplar;

class Peek : public Vertex {
public:
  Input<Vector<float>> in;
  Output<float> out;
  unsigned index;
  bool compute() {
    *out = in[index];
    return true;
  }
};

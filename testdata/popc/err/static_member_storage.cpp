// A static data member that is not a constant (here used by workers to
// share partial results) would need storage shared by every vertex of its
// type on a tile: refused by name where it is used.
#include <poplar/Vertex.hpp>
using namespace poplar;
class Partials : public MultiVertex {
public:
  static float shared[6];
  Output<Vector<float>> out;
  void compute(unsigned wid) {
    shared[wid] = wid;
    out[wid] = shared[0];
  }
};

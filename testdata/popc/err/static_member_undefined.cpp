// A static data member that is not a constant is storage, which C++ gives
// it only where it is defined outside the class: declared alone, it is
// refused by name (g++ would fail to link).
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

// The out-of-class definition of a static data member is refused by name.
#include <poplar/Vertex.hpp>
using namespace poplar;
class Partials : public MultiVertex {
public:
  static float shared[6];
  Output<Vector<float>> out;
  void compute(unsigned wid) { out[wid] = 1.0f; }
};
float Partials::shared[6] = {-1};

// Through a reference parameter, and a scalar Input edge with ++.
#include <poplar/Vertex.hpp>
using namespace poplar;
static void clear(unsigned &x) { x = 0; }
class V : public Vertex {
public:
  Input<unsigned> n;
  Input<Vector<unsigned>> in;
  void compute() {
    clear(const_cast<unsigned &>(in[2]));
  }
};

// A vertex's state is Poplar's layout: it cannot also derive from a helper
// class.
#include <poplar/Vertex.hpp>
using namespace poplar;
struct Extra { int a; };
class V : public Vertex, public Extra {
public:
  Output<int> out;
  void compute() { *out = 1; }
};

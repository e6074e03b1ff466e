// An operator called by name takes as many operands as the operator does:
// `operator[]` one besides its object.
#include <poplar/Vertex.hpp>
using namespace poplar;
struct Grid {
  int cells[4];
  int &operator[](int i) { return cells[i]; }
};
class Pick : public Vertex {
public:
  Output<int> out;
  void compute() {
    Grid g;
    *out = g.operator[](1, 2);
  }
};

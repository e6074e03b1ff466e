// A reference member is bound to a reference parameter of the constructor.
#include <poplar/Vertex.hpp>
using namespace poplar;
struct View {
  View(int base) : first(base) {}
  int &first;
};
class V : public Vertex {
public:
  Output<int> out;
  void compute() {
    View v{3};
    *out = v.first;
  }
};

// popc gives static storage only to the static data members of vertex
// classes: a helper class's, defined outside it, is refused by name.
#include <poplar/Vertex.hpp>
using namespace poplar;
struct Counter {
  static unsigned calls;
  unsigned next() { return ++calls; }
};
unsigned Counter::calls = 0;
class Counting : public Vertex {
public:
  Output<unsigned> out;
  void compute() { *out = 1; }
};

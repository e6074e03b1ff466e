// Static storage holds scalars and arrays of scalars; a static data member
// of class type is refused by name.
#include <poplar/Vertex.hpp>
using namespace poplar;
struct Pair { float a, b; };
class Keeps : public Vertex {
public:
  static Pair last;
  Output<float> out;
  void compute() { *out = last.a; }
};
Pair Keeps::last = {1, 2};

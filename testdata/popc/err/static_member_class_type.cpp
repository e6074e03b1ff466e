// Static storage is initialised from constants before the program runs:
// an object of a class whose constructor does work is refused by name.
#include <poplar/Vertex.hpp>
using namespace poplar;
struct Pair {
  float a, b;
  Pair() : a(1), b(2) {}
};
class Keeps : public Vertex {
public:
  static Pair last;
  Output<float> out;
  void compute() { *out = last.a; }
};
Pair Keeps::last;

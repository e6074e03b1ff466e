// A namespace-scope variable is initialised before the program runs, from
// a constant: an initialiser that calls a function that is not constexpr
// is refused, naming the variable.
#include <poplar/Vertex.hpp>
using namespace poplar;
float seed() { return 2.0f; }
float gScale = seed();
class Scales : public Vertex {
public:
  Output<float> out;
  void compute() { *out = gScale; }
};

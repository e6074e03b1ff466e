// A struct holding a vertex edge cannot be brace-initialised: the edge is
// bound by the graph, not by a value (found by the codelet fuzzer).
#include <poplar/Vertex.hpp>
using namespace poplar;
struct Pair {
  float first;
  Output<float> out;
};
class C : public Vertex {
public:
  Output<float> out;
  bool compute() {
    Pair p{1, 2};
    *out = p.first;
    return true;
  }
};

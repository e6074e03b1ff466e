// Reaching the end of a function that returns a value is undefined in C++:
// popc traps there (as clang does, and UBSan's `return` check), instead of
// returning whatever the result happened to hold. A function whose every
// path returns runs as usual.
#include <poplar/Vertex.hpp>
using namespace poplar;

static int sign(int x) {
  if (x > 0)
    return 1;
  if (x < 0)
    return -1;
}

static int clampTo(int x, int hi) {
  if (x > hi)
    return hi;
  else
    return x;
}

class Sign : public Vertex {
public:
  Input<int> in;
  Output<int> out;
  void compute() { *out = clampTo(sign(*in), 0) + sign(*in); }
};

// The Poplar tutorial 3 exercise starts from a compute() like this one.
class Empty : public Vertex {
public:
  bool compute() {}
};
// RUN Sign
//   in = [-5]
//   out = [7]
// RUN Sign
//   in = [0]
//   out = [7]
// RUN Empty

// memcpy / memset within the tile, #define macros, -D definitions,
// function-like macros with # and ##, #if / #elif, includes.
#include <poplar/Vertex.hpp>
#include <cstring>
using namespace poplar;
// ARGS -DWIDTH=3 -DFEATURE
#define CAT(a, b) a##b
#define STR(x) #x
#define TWICE(x) ((x) * 2)
#if defined(FEATURE) && WIDTH > 2
#define EXTRA 1000
#elif WIDTH == 2
#define EXTRA 2
#else
#define EXTRA 0
#endif

class Mem : public Vertex {
public:
  Input<Vector<int>> in;
  Output<Vector<int>> out;
  void compute() {
    std::memset(&out[0], 0, out.size() * sizeof(int));
    memcpy(&out[0], &in[0], WIDTH * sizeof(int));
    int CAT(my, var) = TWICE(EXTRA);
    out[WIDTH] = myvar + sizeof(STR(hello));
  }
};
// RUN Mem
//   in = [7, 8, 9, 10]
//   out = [1, 1, 1, 1, 1]

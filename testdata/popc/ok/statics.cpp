// Static data members of a vertex class: tile memory, one copy per tile,
// zero-initialised then set by their definitions' constant initialisers,
// and shared by the workers of a MultiVertex (which run in worker order,
// so worker 5 sees what workers 0 to 4 left).
#include <poplar/Vertex.hpp>
using namespace poplar;
class Partials : public MultiVertex {
public:
  Input<Vector<float>> in;
  Output<Vector<float>> out;
  static float shared[6];
  static unsigned calls;
  static constexpr unsigned kWorkers = 6;
  void compute(unsigned wid) {
    out[wid] = shared[wid];
    float s = 0;
    for (unsigned i = wid; i < in.size(); i += kWorkers)
      s += in[i];
    shared[wid] = s;
    ++calls;
    if (wid == kWorkers - 1) {
      float t = 0;
      for (unsigned w = 0; w < kWorkers; ++w) {
        volatile float *p = &shared[w];
        t += *p;
      }
      out[6] = t;
      out[7] = calls;
    }
  }
};
float Partials::shared[6] = {-1};
unsigned Partials::calls = 40;

class Flags : public Vertex {
public:
  Output<Vector<int>> out;
  static int table[2][2];
  static bool seen;
  void compute() {
    out[0] = seen;
    seen = true;
    out[1] = table[1][0] + table[0][1];
    table[1][1] += 5;
    out[2] = table[1][1];
  }
};
int Flags::table[2][2] = {{1, 2}, {3}};
bool Flags::seen;
// RUN Partials
//   in = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]
//   out = [0, 0, 0, 0, 0, 0, 0, 0]
// RUN Flags
//   out = [9, 9, 9]

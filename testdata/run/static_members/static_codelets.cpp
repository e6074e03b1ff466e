// Vertices with static storage: a per-tile call counter (a static data
// member, a namespace-scope variable and a helper class's static data
// member), and a MultiVertex whose last worker sums the others' partial
// results.
#include <poplar/Vertex.hpp>
using namespace poplar;

unsigned gTotal = 1000;
struct Tally {
  static unsigned n;
  static unsigned next() { return n += 2; }
};
unsigned Tally::n = 0;

class Count : public Vertex {
public:
  Output<Vector<unsigned>> out;
  static unsigned calls;
  void compute() {
    ++calls;
    out[0] = calls;
    out[1] = Count::calls * 10;
    out[2] = ++gTotal;
    out[3] = Tally::next();
  }
};
unsigned Count::calls = 100;

class Norm : public MultiVertex {
public:
  Input<Vector<float>> x;
  Output<Vector<float>> out;
  static float partial[6];
  void compute(unsigned wid) {
    float s = 0;
    for (unsigned i = wid; i < x.size(); i += numWorkers())
      s += x[i] * x[i];
    partial[wid] = s;
    if (wid == numWorkers() - 1) {
      float t = 0;
      for (unsigned w = 0; w < numWorkers(); ++w)
        t += partial[w];
      out[0] = t;
      out[1] = partial[0];
    }
  }
};
float Norm::partial[6] = {-1, -1, -1, -1, -1, -1};

// Static storage: namespace-scope variables (mutable and constant, in
// namespaces, arrays, an aggregate), static data members of helper
// classes (defined outside the class or inline, constant or not, of class
// templates, inherited, named through an object) and `static` locals (one
// per function template instance); `constexpr` local arrays. Compiled by popc and by
// g++ -O2 against the stub headers, their outputs compared bit for bit
// (popc/tests/differential.rs). The vertices run one after another as on
// one tile, so what one leaves in a global the next one reads.
#include <poplar/Vertex.hpp>
using namespace poplar;

unsigned gCalls = 3;
float gHistory[4] = {0.5f, -1.0f};
const float kWeights[5] = {0.1f, 0.2f, 0.4f, 0.2f, 0.1f};
constexpr int kOrder[4] = {3, 1, 0, 2};
static double gSum = 0.25;
int gA = 1, gB[2] = {5, 6}, gC;
const unsigned kCount = 4;
short gSmall = -3;
unsigned char gBytes[3] = {250, 7};

namespace acc {
int total;
float scale = 2.5f;
float scaled(float x) { return x * scale + float(total); }
namespace inner {
long deep = 1000000007;
}
} // namespace acc

struct Params {
  float gain;
  int shift;
  float bias = 0.5f;
};
Params gParams = {1.5f, 2};
Params gTable[2] = {{1.0f, 1, 1.0f}, {2.0f}};

float smooth(float x) {
  float h = gHistory[gCalls % 4];
  gHistory[gCalls % 4] = x;
  ++gCalls;
  return 0.5f * (x + h);
}

class Globals : public Vertex {
public:
  Input<Vector<float>> in;
  Output<Vector<float>> out;
  bool compute() {
    for (unsigned i = 0; i < 10; ++i)
      out[i] = smooth(in[i]);
    float s = 0;
    for (unsigned k = 0; k < 5; ++k)
      s += kWeights[k] * in[10 + kOrder[k % kCount]];
    out[10] = s;
    gSum += s;
    out[11] = float(gSum);
    acc::total += 3;
    acc::scale *= 0.5f;
    out[12] = acc::scaled(in[12]);
    out[13] = gParams.gain * in[13] + gParams.bias;
    gParams.shift += gA + gB[1] + gC;
    gC = 9;
    out[14] = float(gParams.shift);
    out[15] = float(gCalls);
    float *h = &gHistory[1];
    h[1] += 2.0f;
    Params &p = gTable[1];
    p.shift = int(in[16]);
    out[16] = gTable[0].gain + gTable[1].bias + float(gTable[1].shift) + float(gSmall);
    acc::inner::deep += gBytes[0] + gBytes[1] + gBytes[2];
    gBytes[2] = gBytes[0] + gBytes[1];
    out[17] = float(acc::inner::deep % 1000);
    return true;
  }
};

// Reads what Globals left.
class GlobalsAgain : public Vertex {
public:
  Output<Vector<float>> out;
  void compute() {
    out[0] = float(gCalls);
    for (unsigned i = 0; i < 4; ++i)
      out[1 + i] = gHistory[i];
    out[5] = float(gParams.shift + gC);
    out[6] = acc::scale + float(acc::total);
    out[7] = float(gSum);
    out[8] = float(gBytes[2]);
  }
};

// Workers share partial sums through a global array.
float gPartial[6];
class Workers : public MultiVertex {
public:
  Input<Vector<float>> in;
  Output<Vector<float>> out;
  void compute(unsigned wid) {
    float s = 0;
    for (unsigned i = wid; i < in.size(); i += 6)
      s += in[i];
    gPartial[wid] = s;
    if (wid == 5) {
      float t = 0;
      for (unsigned w = 0; w < 6; ++w)
        t += gPartial[w];
      out[0] = t;
    }
  }
};

struct Counter {
  static unsigned calls;
  static inline int bias = -7;
  static const int step;
  static constexpr float w[3] = {0.25f, 0.5f, 0.25f};
  static const float table[3];
  unsigned next() {
    calls += step;
    return calls;
  }
  static float weigh(const float *p) { return w[0] * p[0] + w[1] * p[1] + w[2] * p[2]; }
};
unsigned Counter::calls = 10;
const int Counter::step = 2;
const float Counter::table[3] = {1.0f, 2.0f, 4.0f};

struct Tally : Counter {
  int twice() {
    next();
    return int(next()) + bias;
  }
};

template <class T> struct Acc {
  static inline T total = 0;
  static T count;
  static T add(T x) {
    ++count;
    total += x;
    return total;
  }
};
template <class U> U Acc<U>::count = 100;

class Statics : public Vertex {
public:
  Input<Vector<float>> in;
  Input<Vector<int>> ints;
  Output<Vector<float>> out;
  void compute() {
    Counter c;
    Tally t;
    out[0] = float(c.next());
    out[1] = float(t.twice());
    out[2] = float(Counter::calls + Tally::calls + c.calls);
    Counter::bias += 1;
    out[3] = float(Tally::bias);
    float p[3] = {in[0], in[1], in[2]};
    out[4] = Counter::weigh(p);
    out[5] = Counter::table[unsigned(ints[0]) % 3] * Counter::w[1];
    for (unsigned i = 0; i < 8; ++i) {
      Acc<float>::add(in[i]);
      Acc<int>::add(ints[i]);
    }
    out[6] = Acc<float>::total;
    out[7] = float(Acc<int>::total);
    int arr[Counter::step + 1] = {};
    out[8] = float(sizeof(arr));
    out[9] = Acc<float>::count + float(Acc<int>::count);
  }
};

unsigned bump() {
  static unsigned n = 5;
  return ++n;
}
template <class T> T tick(T step) {
  static T c = 1;
  c += step;
  return c;
}
struct Ring {
  float next(float x) {
    static float last[2] = {0.25f};
    static unsigned at;
    float r = last[at % 2];
    last[at++ % 2] = x;
    return r;
  }
};

class Locals : public Vertex {
public:
  Input<Vector<float>> in;
  Output<Vector<float>> out;
  void compute() {
    static float acc = 1.0f;
    static const int kTwo = 2;
    constexpr unsigned idx[4] = {3, 0, 2, 1};
    static constexpr float w[4] = {0.5f, 0.25f, 2.0f, -1.0f};
    acc *= 1.5f;
    out[0] = acc;
    out[1] = float(bump());
    out[2] = float(bump());
    out[3] = float(tick(kTwo)) + tick(0.5f) + float(tick(3));
    Ring r1, r2;
    for (unsigned i = 0; i < 5; ++i)
      out[4 + i] = r1.next(in[i]) + r2.next(in[5 + i]);
    float s = 0;
    for (unsigned i = 0; i < 4; ++i)
      s += w[i] * in[10 + idx[i]];
    out[9] = s;
  }
};

// The same locals, seen by another vertex on the tile.
class LocalsAgain : public Vertex {
public:
  Output<Vector<float>> out;
  void compute() {
    out[0] = float(bump());
    out[1] = float(tick(1));
    Ring r;
    out[2] = r.next(7.0f);
  }
};

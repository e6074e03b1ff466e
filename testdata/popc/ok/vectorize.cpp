// Elementwise float loops that popc gives a SIMD copy (popc/src/vectorize.rs):
// results, traps and counts must be the scalar loop's. popc/tests/vectorize.rs
// also runs these kernels with aliased and overlapping vectors and checks
// them against `-fno-vectorize` byte for byte.
#include <poplar/Vertex.hpp>
using namespace poplar;

class ScaledAdd : public Vertex {
public:
  InOut<Vector<float>> x;
  Input<Vector<float>> y;
  float k;
  void compute() { for (unsigned i = 0; i < x.size(); ++i) x[i] = x[i] + k * y[i]; }
};

// Compound assignments, unary minus, division, several statements (the
// later ones read what the earlier ones wrote), an int index.
class Ops : public Vertex {
public:
  InOut<Vector<float>> x;
  Input<Vector<float>> y;
  Output<Vector<float>> z;
  float k;
  void compute() {
    for (int i = 0; i < x.size(); i++) {
      z[i] = -y[i] / k;
      x[i] -= y[i] * 2;
      x[i] *= z[i] + 0.5f;
      z[i] /= x[i] - k;
    }
  }
};

// Invariant locals, a scalar edge, a pointer local, a field bound and a
// non-zero start, `!=` and `+= 1`.
class Bounded : public Vertex {
public:
  Output<Vector<float>> out;
  Input<Vector<float>> in;
  Input<float> s;
  unsigned start;
  unsigned n;
  float k;
  void compute() {
    float a = k * 3.0f;
    const float c = 2.5f;
    float *p = &out[0];
    for (unsigned i = start; i != n; i += 1) p[i] = a * in[i] - c * *s;
  }
};

// Fill and copy.
class Fill : public Vertex {
public:
  Output<Vector<float>> out;
  Output<Vector<float>> copy;
  Input<Vector<float>> in;
  void compute() {
    for (unsigned i = 0; i < out.size(); ++i) {
      out[i] = 0.25;
      copy[i] = in[i];
    }
  }
};

// Reductions get a check-free scalar copy, unrolled by four but in source
// order (reassociation would change the sum).
class Dot : public Vertex {
public:
  Input<Vector<float>> a;
  Input<Vector<float>> b;
  Output<float> out;
  void compute() {
    float s = 0;
    for (unsigned i = 0; i < a.size(); ++i) s += a[i] * b[i];
    *out = s;
  }
};

class Sum : public Vertex {
public:
  Input<Vector<float>> in;
  Output<float> out;
  void compute() {
    float s = 0;
    for (unsigned i = 0; i < in.size(); ++i) s += in[i];
    *out = s;
  }
};

// A scaled sum: `k` a field, `c` an invariant local.
class ScaledSum : public Vertex {
public:
  Input<Vector<float>> a;
  Output<float> out;
  float k;
  void compute() {
    const float c = 0.5f;
    float s = 1;
    for (int i = 0; i < a.size(); i++) s += k * a[i] - c;
    *out = s;
  }
};

// `-=` and `acc = acc - e` from a field start to a field bound; the final
// `i` and both accumulators are what the scalar loop leaves.
class SubReduce : public Vertex {
public:
  Input<Vector<float>> a;
  Input<Vector<float>> b;
  Output<float> out;
  Output<unsigned> last;
  unsigned start;
  unsigned n;
  float k;
  void compute() {
    float s = 3, t = -1;
    unsigned i;
    for (i = start; i < n; ++i) {
      s -= a[i] * b[i];
      t = t - a[i] / k;
    }
    *out = s * t;
    *last = i;
  }
};

// A reduction that also stores elementwise, reading what it stored.
class ReduceStore : public Vertex {
public:
  Output<Vector<float>> y;
  Input<Vector<float>> x;
  Output<float> out;
  float k;
  void compute() {
    float s = 0;
    for (unsigned i = 0; i < y.size(); ++i) {
      y[i] = x[i] * k + 1;
      s += y[i] * x[i];
      y[i] -= 2;
    }
    *out = s;
  }
};

// Not reductions of the pattern: the accumulator is read elsewhere in the
// body, or is a double.
class NotReduction : public Vertex {
public:
  Input<Vector<float>> a;
  Output<float> out;
  void compute() {
    float s = 1;
    for (unsigned i = 0; i < a.size(); ++i) s += s * a[i];
    double d = 0;
    for (unsigned i = 0; i < a.size(); ++i) d += a[i];
    *out = s + d;
  }
};

// Casts to float, as the library's generated elementwise code writes them:
// no operation on a float, a rounding of a double constant.
class Casts : public Vertex {
public:
  Output<Vector<float>> out;
  Input<Vector<float>> a;
  Input<Vector<float>> b;
  void compute() {
    for (unsigned i = 0; i < out.size(); ++i)
      out[i] = (float)((float)(a[i] + b[i]) * static_cast<float>(0.1)) - float(a[i]);
  }
};

// A matrix product's inner loop: two rows of `c` take two terms each, every
// `b` vector read by both rows. The SIMD copy loads each `b` chunk once and
// keeps it across the store to `c0`, which needs `c0` apart from the `b`s,
// not merely equal to one of them.
class TwoRows : public Vertex {
public:
  InOut<Vector<float>> c0;
  Input<Vector<float>> b0;
  Input<Vector<float>> b1;
  InOut<Vector<float>> c1;
  float k;
  void compute() {
    const float x = k + 1.0f;
    for (unsigned j = 0; j < c0.size(); ++j) {
      c0[j] = c0[j] + k * b0[j] + x * b1[j];
      c1[j] = c1[j] + x * b0[j] + k * b1[j];
    }
  }
};

// RUN ScaledAdd
//   x = []
//   y = []
//   k = 0.5
// RUN ScaledAdd
//   x = [1]
//   y = [2]
//   k = 0.5
// RUN ScaledAdd
//   x = [1, 2, 3]
//   y = [2, 4, 6]
//   k = 0.5
// RUN ScaledAdd
//   x = [1, 2, 3, 4]
//   y = [2, 4, 6, 8]
//   k = 0.5
// RUN ScaledAdd
//   x = [1, 2, 3, 4, 5]
//   y = [2, 4, 6, 8, 10]
//   k = 0.5
// RUN ScaledAdd
//   x = [1, 2, 3, 4, 5, 6, 7]
//   y = [2, 4, 6, 8, 10, 12, 14]
//   k = -1.5
// RUN ScaledAdd
//   x = [1, 2, 3, 4, 5, 6, 7, 8]
//   y = [2, 4, 6, 8, 10, 12, 14, 16]
//   k = 0.25
// RUN ScaledAdd
//   x = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17]
//   y = [0.5, 1, 1.5, 2, 2.5, 3, 3.5, 4, 4.5, 5, 5.5, 6, 6.5, 7, 7.5, 8, 8.5]
//   k = 2
// RUN ScaledAdd
//   x = [1, 2, 3, 4, 5, 6, 7, 8, 9]
//   y = [1, 2, 3]
//   k = 1
// RUN Ops
//   x = [1, 2, 3, 4, 5, 6, 7, 8, 9]
//   y = [0.5, -1, 2, 4, -8, 3, 1, 0.25, 6]
//   z = [0, 0, 0, 0, 0, 0, 0, 0, 0]
//   k = 4
// RUN Bounded
//   out = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
//   in = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
//   s = [2]
//   start = 2
//   n = 11
//   k = 0.5
// RUN Bounded
//   out = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
//   in = [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11]
//   s = [2]
//   start = 3
//   n = 100000
//   k = 0.5
// RUN Fill
//   out = [1, 2, 3, 4, 5, 6]
//   copy = [0, 0, 0, 0, 0, 0]
//   in = [7, 8, 9, 10, 11, 12]
// RUN Dot
//   a = [1, 2, 3, 4, 5]
//   b = [1, 1, 1, 1, 2]
//   out = [0]
// RUN Sum
//   in = [16777216, 1, 1, 1, 1, -16777216, 0.5, 0.25, 3]
//   out = [0]
// RUN ScaledSum
//   a = [1, 2, 3, 4, 5, 6]
//   out = [0]
//   k = 2
// RUN SubReduce
//   a = [1, 2, 3, 4, 5, 6, 7, 8]
//   b = [1, 1, 1, 1, 1, 1, 1, 1]
//   out = [0]
//   last = [0]
//   start = 1
//   n = 8
//   k = 2
// RUN SubReduce
//   a = [1, 2, 3, 4, 5, 6, 7, 8]
//   b = [1, 1, 1, 1, 1, 1, 1, 1]
//   out = [0]
//   last = [0]
//   start = 0
//   n = 100000
//   k = 2
// RUN ReduceStore
//   y = [0, 0, 0, 0, 0]
//   x = [1, 2, 3, 4, 5]
//   out = [0]
//   k = 2
// RUN NotReduction
//   a = [1, 1, 1, 1]
//   out = [0]
// RUN TwoRows
//   c0 = [1, 2, 3, 4, 5, 6]
//   b0 = [0.5, 1, 1.5, 2, 2.5, 3]
//   b1 = [1, 1, 1, 1, 1, -1]
//   c1 = [0, 0, 0, 0, 0, 0]
//   k = 2
// RUN Casts
//   out = [0, 0, 0, 0, 0]
//   a = [1, 2, 3, 4, 5]
//   b = [0.5, 0.25, 0.125, 1, 3]

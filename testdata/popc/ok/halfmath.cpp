// half arithmetic with round-to-nearest-even on every store and
// conversion, the maths library, std::min/max/abs/swap.
#include <poplar/Vertex.hpp>
#include <poplar/HalfFloat.hpp>
#include <cmath>
#include <algorithm>
using namespace poplar;

class HalfOps : public Vertex {
public:
  Input<Vector<half>> a;
  Input<Vector<half>> b;
  Output<Vector<half>> out;
  Output<Vector<float>> fout;
  void compute() {
    for (unsigned i = 0; i < a.size(); ++i) {
      half x = a[i] * b[i] + half(1.0f);
      out[i] = x;
      fout[i] = float(a[i]) / 3.0f;
    }
    half big = 65504.0f;
    out[a.size()] = big * half(2.0f);
    half tiny = 1e-7f;
    fout[a.size()] = tiny;
  }
};

class Maths : public Vertex {
public:
  Input<float> x;
  Output<Vector<float>> out;
  Output<Vector<double>> dout;
  void compute() {
    float v = *x;
    out[0] = std::sqrt(v); out[1] = std::exp(v); out[2] = std::log(v);
    out[3] = log1p(v); out[4] = expm1(v); out[5] = std::pow(v, 2.5f);
    out[6] = sinf(v); out[7] = cos(v); out[8] = tan(v); out[9] = tanh(v);
    out[10] = atan2(v, 2.0f); out[11] = erf(v); out[12] = fabs(-v);
    out[13] = floor(v); out[14] = ceil(v); out[15] = round(v); out[16] = trunc(-v);
    out[17] = fmin(v, 1.0f); out[18] = fmax(v, 1.0f); out[19] = fma(v, v, 1.0f);
    out[20] = std::isnan(v) + 2 * std::isinf(v);
    out[21] = std::min(v, 1.0f) + std::max(v, 3.0f);
    int ia = -3, ib = 4;
    std::swap(ia, ib);
    out[22] = std::abs(ib) * 10 + ia;
    double d = v;
    dout[0] = std::sqrt(d); dout[1] = std::exp(d); dout[2] = std::sin(d);
  }
};
// RUN HalfOps
//   a = [1, 2.5, 0.1, -3]
//   b = [2, 0.3333, 0.2, 7]
//   out = [0, 0, 0, 0, 0]
//   fout = [0, 0, 0, 0, 0]
// RUN Maths
//   x = [2.25]
//   out = [0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0]
//   dout = [0, 0, 0]

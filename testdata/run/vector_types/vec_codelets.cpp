// IPU vector types over edges: float2 and half4 read and written through
// pointers to the edges' data (the usual reinterpret_cast idiom), with
// scalar broadcast, comparison masks and an ipu:: helper.
#include <poplar/Vertex.hpp>
#include <ipu_vector_math>
using namespace poplar;

class AxpyF2 : public Vertex {
public:
  Input<Vector<float, VectorLayout::SPAN, 8>> x;
  InOut<Vector<float, VectorLayout::SPAN, 8>> y;
  Output<Vector<int>> above;
  float a;
  void compute() {
    const float2 *x2 = reinterpret_cast<const float2 *>(&x[0]);
    float2 *y2 = reinterpret_cast<float2 *>(&y[0]);
    int2 *m2 = reinterpret_cast<int2 *>(&above[0]);
    for (unsigned i = 0; i < y.size() / 2; ++i) {
      y2[i] = a * x2[i] + y2[i];
      m2[i] = y2[i] > 10.0f;
    }
  }
};

class ScaleH4 : public Vertex {
public:
  InOut<Vector<half, VectorLayout::SPAN, 8>> h;
  half k;
  void compute() {
    half4 *h4 = reinterpret_cast<half4 *>(&h[0]);
    half4 kk = {k, k, k, k};
    for (unsigned i = 0; i < h.size() / 4; ++i) {
      h4[i] = ipu::fabs(h4[i] * kk - half(1.0f));
    }
  }
};

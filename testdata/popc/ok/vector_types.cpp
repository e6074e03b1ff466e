// The IPU's vector types outside `__IPU__` paths: float2/half4/int2/...
// as locals, parameters and returns, struct members and arrays, read and
// written through pointers into edges (the reinterpret_cast idiom, with
// its alignment trap), element-wise operators with scalar broadcast on
// either side, comparisons giving -1/0 masks, v[i], sizeof/alignof,
// __builtin_convertvector, half
// vectors rounding as scalar half does, and the portable ipu:: helpers
// and __builtin_ipu_* built-ins, ipu::load_postinc among them.
#include <poplar/Vertex.hpp>
#include <ipu_vector_math>
using namespace poplar;

// `alignas` with a number on a helper class.
struct alignas(16) Wide {
  float a;
};

struct Pair {
  float2 a;
  half4 h;
};

float2 scaleAdd(float2 x, float k, float2 y) { return x * k + y; }
half4 twice(half4 h) { return h + h; }

class Floats : public Vertex {
public:
  Input<Vector<float, VectorLayout::SPAN, 8>> in;
  Output<Vector<float, VectorLayout::SPAN, 8>> out;
  Output<Vector<float>> misc;
  unsigned sel;
  void compute() {
    const float2 *p = reinterpret_cast<const float2 *>(&in[0]);
    float2 *q = reinterpret_cast<float2 *>(&out[0]);
    float2 acc = {0.0f, 0.0f};
    for (unsigned i = 0; i < in.size() / 2; ++i) {
      acc += p[i];
      q[i] = scaleAdd(p[i], 2.0f, float2{1.0f, -1.0f}) / 4;
    }
    float2 arr[3];
    arr[0] = acc;
    arr[1] = 1.0f - acc;
    arr[2] = -arr[1] * arr[0];
    arr[2][1] = 0.5f;
    int2 lt = arr[0] < arr[1];
    int2 ge = arr[0] >= 4.0f;
    Pair pr = {arr[2], {1.0f, 2.0f, 3.0f, 4.0f}};
    pr.h = twice(pr.h) * half(0.1f);
    float4 f4 = {1.0f, 2.0f, 3.0f, 4.0f};
    f4 *= 0.5f;
    misc[0] = acc[0];
    misc[1] = acc[1];
    misc[2] = arr[2][0];
    misc[3] = arr[2][sel];
    misc[4] = lt[0];
    misc[5] = lt[1];
    misc[6] = ge[0] + 10 * ge[1];
    misc[7] = pr.h[3];
    misc[8] = pr.a[1];
    misc[9] = f4[3];
    misc[10] = sizeof(float2) * 100 + alignof(float2) * 10 + alignof(half2);
    misc[11] = sizeof(float4) * 100 + sizeof(half4) * 10 + sizeof(char2);
  }
};

class Ints : public Vertex {
public:
  InOut<Vector<int, VectorLayout::SPAN, 8>> io;
  Output<Vector<int>> misc;
  void compute() {
    int2 *p = reinterpret_cast<int2 *>(&io[0]);
    int2 a = p[0];
    int2 b = {3, -5};
    p[0] = (a * b + 1) % 7;
    p[1] = (a << 2) ^ ~b;
    *(p + 2) = (a & 6) | (b >> 1);
    short4 s = {32767, -32768, 7, -7};
    s = s + short(1);
    uchar4 u = {250, 5, 128, 0};
    u -= 6;
    char4 m = uchar4{1, 2, 3, 4} == u;
    misc[0] = s[0];
    misc[1] = s[1];
    misc[2] = u[0];
    misc[3] = u[1];
    misc[4] = u[3];
    misc[5] = m[0] + m[1] + m[2] + m[3];
    uint2 w = {4000000000u, 1u};
    int2 c = w > 2u;
    misc[6] = c[0];
    misc[7] = c[1];
    long2 l = {1, 2};
    l = l * 3000000000L;
    misc[8] = int(l[1] / 1000);
    float4 f = __builtin_convertvector(s, float4) * 0.5f;
    misc[9] = int(f[1] + f[2]);
    misc[10] = int(sizeof(Wide) * 100 + alignof(Wide));
  }
};

class Helpers : public Vertex {
public:
  Input<Vector<float, VectorLayout::SPAN, 8>> in;
  Output<Vector<float>> out;
  void compute() {
    float2 x = *reinterpret_cast<const float2 *>(&in[0]);
    float2 e = ipu::exp(x);
    float2 r = ipu::rsqrt(x);
    half2 h = {half(0.3f), half(-2.5f)};
    half2 ha = ipu::fabs(h);
    out[0] = e[0];
    out[1] = r[1];
    out[2] = ha[1];
    out[3] = ipu::sigmoid(0.0f);
    out[4] = ipu::fmax(in[0], in[1]);
    out[5] = ipu::copysign(2.0f, -1.0f);
    out[6] = float(ipu::sqrt(half(2.0f)));
    out[7] = __builtin_ipu_exp2(3.0f);
    float lt = __builtin_ipu_cmplt(1.0f, 2.0f);
    out[8] = __builtin_ipu_andc_f32(-3.0f, lt) == 0.0f;
    out[9] = __builtin_ipu_isnan(in[2] - in[2]) + 2 * __builtin_ipu_isinf(1.0f / 0.0f);
    const float2 *p = reinterpret_cast<const float2 *>(&in[0]);
    float2 a = ipu::load_postinc(&p, 1);
    float2 b = ipu::load_postinc(&p, -1);
    out[10] = a[0] * 100 + b[0] * 10 + (*p)[1];
    float2 t = {0.0f, 0.0f};
    t = p[1];
    out[11] = t[0] - t[1];
  }
};

// Reads a float2 at element `off` of `in`: misaligned when `off` is odd.
class Misaligned : public Vertex {
public:
  Input<Vector<float, VectorLayout::SPAN, 8>> in;
  Output<float> out;
  unsigned off;
  void compute() {
    const float2 *p = reinterpret_cast<const float2 *>(&in[off]);
    *out = (*p)[0];
  }
};

// RUN Floats
//   in = [1, 2, 3, 4, 5, 6]
//   out = [0, 0, 0, 0, 0, 0]
//   misc = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
//   sel = 1
// RUN Floats
//   in = [1, 2]
//   out = [0, 0]
//   misc = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
//   sel = 2
// RUN Ints
//   io = [5, -3, 0, 0, 0, 0]
//   misc = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
// RUN Helpers
//   in = [1, 4, 2, 0]
//   out = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
// RUN Misaligned
//   in = [1, 2, 3, 4]
//   out = 0
//   off = 2
// RUN Misaligned
//   in = [1, 2, 3, 4]
//   out = 0
//   off = 1

// Every codelet feature of docs/codelets.md not exercised by the other ok cases:
// the preprocessor (#undef, #if/#elif, ##, __POPC__ without __IPU__), every
// built-in header, typedef and alias, enums, structs, namespaces and
// constexpr, type traits, alignof, static_assert, iterators, lambdas,
// std::swap/min/max, numeric_limits<half>, the maths functions, uint64_t,
// Vector layouts and the poplar::constraint attribute. The results are
// checked against values worked out by hand (see the .out file).
#include <poplar/Vertex.hpp>
#include <poplar/HalfFloat.hpp>
#include <poplar/TileConstants.hpp>
#include <poplar/AvailableVTypes.h>
#include <poplar/StackSizeDefs.hpp>
#include <cmath>
#include <math.h>
#include <cstdint>
#include <stdint.h>
#include <cstdlib>
#include <cstring>
#include <cassert>
#include <limits>
#include <type_traits>
#include <algorithm>
#include <array>
#include <utility>
#include <print.h>
#ifndef __POPC__
#error "no popc"
#endif
#ifdef __IPU__
#error "ipu defined"
#endif
#define TWICE(x) ((x) * 2)
#define CAT(a, b) a##b
#define STR(x) #x
#define FOO 1
#undef FOO
#if defined(FOO)
#error "undef failed"
#elif __cplusplus >= 201703L
#define OK 1
#else
#error "else"
#endif
using namespace poplar;
typedef unsigned int u32;
using f32 = float;
enum class Mode { A = 1, B = 2 };
enum Plain { P0, P1 };
struct Pt { int x; int y; };
namespace my { constexpr int three() { return 3; } }
template <typename T> struct Traits { static constexpr bool fp = std::is_floating_point<T>::value; };
template <typename T, unsigned N = 2>
class Feat : public Vertex {
public:
  Feat();
  static const bool isExternalCodelet = false;
  Input<Vector<T, ONE_PTR>> a;
  Input<Vector<T, SPAN, 8>> b;
  Output<Vector<T>> out;
  InOut<uint64_t> acc;
  const unsigned n;
  [[poplar::constraint("elem(*a) != elem(*out)")]] unsigned dummy;
  auto compute() -> bool {
    static_assert(sizeof(T) >= 2, "size");
    static_assert(alignof(float) == 4, "align");
    static_assert(std::is_same<typename std::conditional<true, T, int>::type, T>::value, "cond");
    static_assert(CTXT_WORKERS == 6, "workers");
    static_assert(my::three() == 3, "ns");
    u32 CAT(cnt, 1) = 0;
    f32 s = 0;
    Pt p{1, 2};
    Mode m = Mode::B;
    int arr[4] = {1, 2, 3, 4};
    const T *pb = &b[0];
    for (auto it = b.begin(); it != b.end(); ++it) { s += float(*it); }
    for (unsigned i = 0; i < b.size(); ++i) {
      if constexpr (Traits<T>::fp) { out[i] = T(float(a[i]) * TWICE(1) + float(pb[i])); }
      else { out[i] = a[i] + b[i]; }
      ++cnt1;
    }
    int k = 0;
    do { k++; } while (k < 3);
    switch (m) { case Mode::A: k += 10; break; case Mode::B: k += 20; break; default: break; }
    auto sq = [](int v) { return v * v; };
    k += sq(p.y) + arr[3];
    k = std::max(k, 0); k = std::min(k, 1000);
    std::swap(p.x, p.y);
    float lim = std::numeric_limits<half>::max();
    float e = std::erf(0.5f) + std::log1p(0.1f) + std::expm1(0.1f) + atan2f(1.0f, 2.0f) + std::fma(1.0f, 2.0f, 3.0f);
    bool nn = std::isnan(e) || std::isinf(e);
    uint8_t bytes[4] = {1,0,0,0};
    *acc += uint64_t(k) + cnt1 + n + bytes[0] + (nn ? 1000 : 0) + (lim == 65504.0f ? 0 : 99999);
    printf("%d %g\n", k, double(s));
    assert(k > 0);
    return true;
  }
};
template class Feat<float>;
template class Feat<half, 3>;
class Sup : public SupervisorVertex {
public:
  InOut<int> x;
  void compute() { *x += 1; }
};
class MV : public MultiVertex {
public:
  InOut<Vector<int>> v;
  bool compute(unsigned wid) { for (unsigned i = wid; i < v.size(); i += numWorkers()) v[i] += 1; return true; }
};
class Lists : public Vertex {
public:
  Vector<Input<Vector<float>>> ins;
  VectorList<float, DELTANELEMENTS> ins2;
  Input<Vector<float, SCALED_PTR32>> sp;
  Input<Vector<float, COMPACT_PTR>> cp;
  Input<Vector<float, SHORT_SPAN>> ss;
  Output<float> out;
  bool compute() { float s = 0; for (unsigned j = 0; j < ins.size(); ++j) for (unsigned i = 0; i < ins[j].size(); ++i) s += ins[j][i]; *out = s + ss.size(); return true; }
};

// RUN Feat<float,2>
//   a = [1, 2, 3]
//   b = [0.5, 0.25, 4]
//   out = [0, 0, 0]
//   acc = [5]
//   n = 7
// RUN Feat<half,3>
//   a = [1, 2]
//   b = [3, 4]
//   out = [0, 0]
//   acc = [0]
//   n = 1
// RUN Sup
//   x = [41]
// RUN MV
//   v = [1, 2, 3, 4, 5, 6, 7, 8]
// RUN Lists
//   ins = [[1, 2], [3]]
//   ins2 = [[1]]
//   sp = [1]
//   cp = [1]
//   ss = [1, 2, 3]
//   out = [0]

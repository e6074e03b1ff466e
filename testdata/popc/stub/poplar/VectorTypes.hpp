// Stub IPU vector types for g++: GCC vector extensions (element-wise
// operators, a scalar broadcast on either side, comparisons giving -1/0
// masks, `[]`) for the integer and float ones, and a small struct with the
// same operators for the half ones (the stub `half` is a class, which
// vector extensions cannot hold). Also the `__builtin_ipu_*` built-ins with
// a plain meaning, which popc's `<ipudef.h>` declares.
#pragma once
#include <cmath>
#include <cstring>
#include "HalfFloat.hpp"

typedef float float2 __attribute__((vector_size(8)));
typedef float float4 __attribute__((vector_size(16)));
typedef int int2 __attribute__((vector_size(8)));
typedef int int4 __attribute__((vector_size(16)));
typedef unsigned uint2 __attribute__((vector_size(8)));
typedef unsigned uint4 __attribute__((vector_size(16)));
typedef short short2 __attribute__((vector_size(4)));
typedef short short4 __attribute__((vector_size(8)));
typedef unsigned short ushort2 __attribute__((vector_size(4)));
typedef unsigned short ushort4 __attribute__((vector_size(8)));
typedef signed char char2 __attribute__((vector_size(2)));
typedef signed char char4 __attribute__((vector_size(4)));
typedef unsigned char uchar2 __attribute__((vector_size(2)));
typedef unsigned char uchar4 __attribute__((vector_size(4)));
typedef long long2 __attribute__((vector_size(16)));

template <unsigned N> struct stub_mask;
template <> struct stub_mask<2> { typedef short2 type; };
template <> struct stub_mask<4> { typedef short4 type; };

template <unsigned N> struct alignas(2 * N) stub_halfN {
  half v[N];
  half &operator[](unsigned i) { return v[i]; }
  const half &operator[](unsigned i) const { return v[i]; }
  typedef typename stub_mask<N>::type mask;
#define STUB_HALFN_OP(op)                                                                          \
  friend stub_halfN operator op(stub_halfN a, stub_halfN b) {                                      \
    stub_halfN r;                                                                                  \
    for (unsigned i = 0; i < N; ++i) r.v[i] = a.v[i] op b.v[i];                                    \
    return r;                                                                                      \
  }                                                                                                \
  friend stub_halfN operator op(stub_halfN a, half b) {                                            \
    stub_halfN r;                                                                                  \
    for (unsigned i = 0; i < N; ++i) r.v[i] = a.v[i] op b;                                         \
    return r;                                                                                      \
  }                                                                                                \
  friend stub_halfN operator op(half a, stub_halfN b) {                                            \
    stub_halfN r;                                                                                  \
    for (unsigned i = 0; i < N; ++i) r.v[i] = a op b.v[i];                                         \
    return r;                                                                                      \
  }                                                                                                \
  stub_halfN &operator op##=(stub_halfN b) { return *this = *this op b; }                          \
  stub_halfN &operator op##=(half b) { return *this = *this op b; }
  STUB_HALFN_OP(+)
  STUB_HALFN_OP(-)
  STUB_HALFN_OP(*)
  STUB_HALFN_OP(/)
#undef STUB_HALFN_OP
#define STUB_HALFN_CMP(op)                                                                         \
  friend mask operator op(stub_halfN a, stub_halfN b) {                                            \
    mask r;                                                                                        \
    for (unsigned i = 0; i < N; ++i) r[i] = float(a.v[i]) op float(b.v[i]) ? -1 : 0;               \
    return r;                                                                                      \
  }                                                                                                \
  friend mask operator op(stub_halfN a, half b) { return a op stub_halfN::all(b); }                \
  friend mask operator op(half a, stub_halfN b) { return stub_halfN::all(a) op b; }
  STUB_HALFN_CMP(==)
  STUB_HALFN_CMP(!=)
  STUB_HALFN_CMP(<)
  STUB_HALFN_CMP(>)
  STUB_HALFN_CMP(<=)
  STUB_HALFN_CMP(>=)
#undef STUB_HALFN_CMP
  stub_halfN operator-() const {
    stub_halfN r;
    for (unsigned i = 0; i < N; ++i) r.v[i] = -v[i];
    return r;
  }
  stub_halfN operator+() const { return *this; }
  static stub_halfN all(half x) {
    stub_halfN r;
    for (unsigned i = 0; i < N; ++i) r.v[i] = x;
    return r;
  }
};
typedef stub_halfN<2> half2;
typedef stub_halfN<4> half4;

inline float __builtin_ipu_exp2(float x) { return exp2f(x); }
inline float __builtin_ipu_cmplt(float a, float b) {
  int m = a < b ? -1 : 0;
  float r;
  std::memcpy(&r, &m, 4);
  return r;
}
inline float __builtin_ipu_andc_f32(float a, float b) {
  unsigned x, y;
  std::memcpy(&x, &a, 4);
  std::memcpy(&y, &b, 4);
  x = x & ~y;
  float r;
  std::memcpy(&r, &x, 4);
  return r;
}
inline bool __builtin_ipu_isnan(float x) { return x != x; }
inline bool __builtin_ipu_isinf(float x) { return x == INFINITY || x == -INFINITY; }
inline bool __builtin_ipu_isfinite(float x) { return !__builtin_ipu_isnan(x) && !__builtin_ipu_isinf(x); }

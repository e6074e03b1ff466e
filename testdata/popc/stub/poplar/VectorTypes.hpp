// Stub IPU vector types for g++: GCC vector extensions (element-wise
// operators and `[]`) for the integer and float ones, a small struct for the
// half ones (the stub `half` is a class, which vector extensions cannot hold).
#pragma once
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

template <unsigned N> struct stub_halfN {
  half v[N];
  half &operator[](unsigned i) { return v[i]; }
  const half &operator[](unsigned i) const { return v[i]; }
#define STUB_HALFN_OP(op)                                                                          \
  friend stub_halfN operator op(stub_halfN a, stub_halfN b) {                                      \
    stub_halfN r;                                                                                  \
    for (unsigned i = 0; i < N; ++i) r.v[i] = a.v[i] op b.v[i];                                    \
    return r;                                                                                      \
  }                                                                                                \
  stub_halfN &operator op##=(stub_halfN b) { return *this = *this op b; }
  STUB_HALFN_OP(+)
  STUB_HALFN_OP(-)
  STUB_HALFN_OP(*)
  STUB_HALFN_OP(/)
#undef STUB_HALFN_OP
};
typedef stub_halfN<2> half2;
typedef stub_halfN<4> half4;

// Stub <poplar/QuarterFloat.hpp>: Poplar's 8-bit float `quarter` for g++
// builds of codelets. Written from the public rules (docs/codelets.md,
// "quarter"), not from popc: the formats of Noune et al. (arXiv 2206.02915)
// as LLVM's Float8E4M3FNUZ / Float8E5M2FNUZ (1.4.3 bias 8, 1.5.2 bias 16, no
// infinities, no negative zero, NaN = 0x80), value = q * 2^scale, rounding
// to nearest even from the exact value, overflow to NaN when `nanoo` is set
// and to the largest value otherwise. This one computes in double with
// ldexp/ilogb/nearbyint (popc's uses integer arithmetic on the float's bits).
#pragma once
#include <cmath>
#include <limits>
#include "HalfFloat.hpp"

// No arithmetic; built from its bit pattern.
struct quarter {
  unsigned char value;
  quarter(unsigned x) : value(static_cast<unsigned char>(x)) {}
};

typedef struct quarter_metadata {
  enum format { f143, f152 } fmt;
  signed char scale;
} quarter_metadata;

// The packed metadata byte: bit 7 set for 1.4.3, bits 0-5 the scale.
typedef unsigned char MetadataType;

namespace stub_quarter {
struct Shape {
  int man, exp, bias;
};
inline Shape shape(quarter_metadata md) {
  return md.fmt == quarter_metadata::f143 ? Shape{3, 4, 8} : Shape{2, 5, 16};
}
} // namespace stub_quarter

namespace poplar {

inline quarter_metadata unpackMetadata(const MetadataType *in) {
  quarter_metadata md;
  md.fmt = (*in >> 7) ? quarter_metadata::f143 : quarter_metadata::f152;
  int s = *in & 63;
  md.scale = static_cast<signed char>(s >= 32 ? s - 64 : s);
  return md;
}

inline float toFloat(quarter q, quarter_metadata md) {
  if (q.value == 0x80)
    return std::numeric_limits<float>::quiet_NaN();
  stub_quarter::Shape s = stub_quarter::shape(md);
  int e = (q.value >> s.man) & ((1 << s.exp) - 1);
  int m = q.value & ((1 << s.man) - 1);
  double v = e ? std::ldexp(1.0 + std::ldexp(m, -s.man), e - s.bias) : std::ldexp(m, 1 - s.bias - s.man);
  v = std::ldexp(v, md.scale);
  return static_cast<float>((q.value & 0x80) ? -v : v);
}

inline half toHalf(quarter q, quarter_metadata md) { return half(toFloat(q, md)); }

template <typename T> inline quarter toQuarter(T value, quarter_metadata md, bool nanoo = true) {
  stub_quarter::Shape s = stub_quarter::shape(md);
  float f = static_cast<float>(value);
  if (std::isnan(f))
    return quarter(0x80);
  unsigned sign = std::signbit(f) ? 0x80 : 0;
  unsigned overflow = nanoo ? 0x80 : (sign | 0x7f);
  if (std::isinf(f))
    return overflow;
  double v = std::ldexp(std::fabs(static_cast<double>(f)), -md.scale); // exact
  if (v == 0)
    return quarter(0);
  int emin = 1 - s.bias;
  int e = std::ilogb(v);
  int step = (e < emin ? emin : e) - s.man; // the spacing of the format there
  double k = std::nearbyint(std::ldexp(v, -step)); // ties to even
  if (k == 0)
    return quarter(0);
  double r = std::ldexp(k, step);
  double largest = std::ldexp(2.0 - std::ldexp(1.0, -s.man), (1 << s.exp) - 1 - s.bias);
  if (r > largest)
    return quarter(overflow);
  int er = std::ilogb(r);
  if (er < emin)
    return quarter(sign | static_cast<unsigned>(k));
  unsigned mant = static_cast<unsigned>(std::ldexp(r, s.man - er)) - (1u << s.man);
  return quarter(sign | static_cast<unsigned>(er + s.bias) << s.man | mant);
}

} // namespace poplar

// Stub: `poplar::IeeeHalf`, a half with access to its bit pattern.
#pragma once
#include "HalfFloat.hpp"

namespace poplar {
struct IeeeHalf : ::half {
  IeeeHalf() = default;
  IeeeHalf(float f) : ::half(f) {}
  IeeeHalf(::half h) : ::half(h) {}
  static IeeeHalf fromBits(unsigned short bits) {
    IeeeHalf h;
    h.b = bits;
    return h;
  }
  unsigned short bit16() const { return b; }
};
} // namespace poplar

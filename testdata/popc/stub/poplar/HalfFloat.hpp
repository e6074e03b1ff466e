// Stub `half`: 16-bit storage, arithmetic in float, round to nearest even
// on every construction (the same integer algorithm as popc's IR).
#pragma once
#include <type_traits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <type_traits>

namespace stub_half {
inline uint32_t bits(float f) { uint32_t u; std::memcpy(&u, &f, 4); return u; }
inline float flt(uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }
inline uint16_t to_half(float v) {
  uint32_t f = bits(v), sign = f & 0x80000000u, a = f ^ sign, r;
  if (a >= 0x47800000u) r = a > 0x7f800000u ? 0x7e00 : 0x7c00;
  else if (a < (113u << 23)) { uint32_t magic = ((127 - 15) + (23 - 10) + 1) << 23; r = bits(flt(a) + flt(magic)) - magic; }
  else { uint32_t odd = (a >> 13) & 1; a += ((uint32_t)(15 - 127) << 23) + 0xfff; a += odd; r = a >> 13; }
  return (uint16_t)(r | (sign >> 16));
}
inline float from_half(uint16_t h) {
  uint32_t shifted = 0x7c00u << 13, o = (uint32_t)(h & 0x7fff) << 13, e = shifted & o;
  o += (127 - 15) << 23;
  if (e == shifted) o += (128 - 16) << 23;
  else if (e == 0) { o += 1 << 23; o = bits(flt(o) - flt(113u << 23)); }
  return flt(o | ((uint32_t)(h & 0x8000) << 16));
}
} // namespace stub_half

struct half {
  uint16_t b;
  half() : b(0) {}
  half(float f) : b(stub_half::to_half(f)) {}
  half(double d) : b(stub_half::to_half((float)d)) {}
  // Every integer type converts as popc converts it: to float, then to
  // half (`half(std::size_t)` is not ambiguous).
  template <class I, typename std::enable_if<std::is_integral<I>::value, int>::type = 0>
  half(I i) : b(stub_half::to_half((float)i)) {}
  operator float() const { return stub_half::from_half(b); }
  half &operator+=(half o) { return *this = half(float(*this) + float(o)); }
  half &operator-=(half o) { return *this = half(float(*this) - float(o)); }
  half &operator*=(half o) { return *this = half(float(*this) * float(o)); }
  half &operator/=(half o) { return *this = half(float(*this) / float(o)); }
  // With a float operand the arithmetic is in float, rounded once (as
  // `h = h * f` is), not with the float first rounded to half.
  half &operator+=(float o) { return *this = half(float(*this) + o); }
  half &operator-=(float o) { return *this = half(float(*this) - o); }
  half &operator*=(float o) { return *this = half(float(*this) * o); }
  half &operator/=(float o) { return *this = half(float(*this) / o); }
  // An integer operand converts to half first, as in `h = h * i` (below).
  template <class I, class = typename std::enable_if<std::is_integral<I>::value>::type>
  half &operator+=(I o) { return *this = half(float(*this) + float(half(float(o)))); }
  template <class I, class = typename std::enable_if<std::is_integral<I>::value>::type>
  half &operator-=(I o) { return *this = half(float(*this) - float(half(float(o)))); }
  template <class I, class = typename std::enable_if<std::is_integral<I>::value>::type>
  half &operator*=(I o) { return *this = half(float(*this) * float(half(float(o)))); }
  template <class I, class = typename std::enable_if<std::is_integral<I>::value>::type>
  half &operator/=(I o) { return *this = half(float(*this) / float(half(float(o)))); }
};
inline half operator+(half a, half b) { return half(float(a) + float(b)); }
inline half operator-(half a, half b) { return half(float(a) - float(b)); }
inline half operator*(half a, half b) { return half(float(a) * float(b)); }
inline half operator/(half a, half b) { return half(float(a) / float(b)); }
inline half operator-(half a) { return half(-float(a)); }
inline float operator+(half a, float b) { return float(a) + b; }
inline float operator+(float a, half b) { return a + float(b); }
inline float operator*(half a, float b) { return float(a) * b; }
inline float operator*(float a, half b) { return a * float(b); }
inline float operator-(half a, float b) { return float(a) - b; }
inline float operator/(half a, float b) { return float(a) / b; }
// An integer operand converts to half first (half ranks above every
// integer type, as in popc), a double operand makes the arithmetic double;
// without these, `1 / h` would be ambiguous between the half operators and
// the built-in float ones.
template <class I> using stub_half_int = typename std::enable_if<std::is_integral<I>::value, half>::type;
#define STUB_HALF_MIXED(op)                                                                        \
  template <class I> inline stub_half_int<I> operator op(I a, half b) { return half(float(a)) op b; }  \
  template <class I> inline stub_half_int<I> operator op(half a, I b) { return a op half(float(b)); }  \
  inline double operator op(double a, half b) { return a op double(float(b)); }                   \
  inline double operator op(half a, double b) { return double(float(a)) op b; }
STUB_HALF_MIXED(+)
STUB_HALF_MIXED(-)
STUB_HALF_MIXED(*)
STUB_HALF_MIXED(/)
#undef STUB_HALF_MIXED
inline float operator-(float a, half b) { return a - float(b); }
inline float operator/(float a, half b) { return a / float(b); }
// The limits popc gives `half` (without this, `lowest()` would be a
// default-constructed zero).
namespace std {
template <> struct numeric_limits<half> {
  static half of(uint16_t b) { half h; h.b = b; return h; }
  static constexpr bool is_specialized = true, is_signed = true, is_integer = false, is_exact = false;
  static constexpr bool has_infinity = true, has_quiet_NaN = true;
  static constexpr int digits = 11, radix = 2;
  static half max() { return of(0x7bff); }
  static half min() { return of(0x0400); }
  static half lowest() { return of(0xfbff); }
  static half epsilon() { return of(0x1400); }
  static half denorm_min() { return of(0x0001); }
  static half infinity() { return of(0x7c00); }
  static half quiet_NaN() { return of(0x7e00); }
};
} // namespace std
// `std::sqrt` of a half is a half, as in popc: the result is rounded
// before any further arithmetic.
namespace std {
inline half sqrt(half x) { return half(std::sqrt(float(x))); }
}

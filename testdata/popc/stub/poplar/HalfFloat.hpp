// Stub `half`: 16-bit storage, arithmetic in float, round to nearest even
// on every construction (the same integer algorithm as popc's IR).
#pragma once
#include <type_traits>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>

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
  half(int i) : b(stub_half::to_half((float)i)) {}
  half(unsigned i) : b(stub_half::to_half((float)i)) {}
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
// An integer operand converts to half, as on the IPU and in popc (`1 - h`
// and `h / 2u` are half).
template <class I> using stub_if_int = typename std::enable_if<std::is_integral<I>::value, half>::type;
template <class I> stub_if_int<I> operator+(I a, half b) { return half(float(a)) + b; }
template <class I> stub_if_int<I> operator-(I a, half b) { return half(float(a)) - b; }
template <class I> stub_if_int<I> operator*(I a, half b) { return half(float(a)) * b; }
template <class I> stub_if_int<I> operator/(I a, half b) { return half(float(a)) / b; }
template <class I> stub_if_int<I> operator+(half a, I b) { return a + half(float(b)); }
template <class I> stub_if_int<I> operator-(half a, I b) { return a - half(float(b)); }
template <class I> stub_if_int<I> operator*(half a, I b) { return a * half(float(b)); }
template <class I> stub_if_int<I> operator/(half a, I b) { return a / half(float(b)); }
// The limits of IEEE half, as popc gives them.
template <> struct std::numeric_limits<half> {
  static constexpr bool is_specialized = true;
  static constexpr bool is_signed = true;
  static constexpr bool is_integer = false;
  static constexpr bool has_infinity = true;
  static constexpr bool has_quiet_NaN = true;
  static constexpr int digits = 11;
  static half max() { return half(65504.0f); }
  static half min() { return half(6.103515625e-05f); }
  static half lowest() { return half(-65504.0f); }
  static half epsilon() { return half(0.0009765625f); }
  static half infinity() { return half(std::numeric_limits<float>::infinity()); }
  static half quiet_NaN() { return half(std::numeric_limits<float>::quiet_NaN()); }
  static half denorm_min() { return half(5.9604644775390625e-08f); }
};
// `std::sqrt` of a half is a half, as in popc: the result is rounded
// before any further arithmetic.
namespace std {
inline half sqrt(half x) { return half(std::sqrt(float(x))); }
}

// float16 and bfloat16 as bit patterns, converted to and from float32 with
// round-to-nearest-even, as NumPy (npy_half) and CUDA (__float2half_rn) do.
#pragma once
#include <cstdint>
#include <cstring>

namespace cujit {

inline std::uint32_t f32_bits(float f) { std::uint32_t u; std::memcpy(&u, &f, 4); return u; }
inline float f32_from_bits(std::uint32_t u) { float f; std::memcpy(&f, &u, 4); return f; }

inline float half_to_float(std::uint16_t h) {
  std::uint32_t sign = static_cast<std::uint32_t>(h & 0x8000u) << 16;
  std::uint32_t exp = (h >> 10) & 0x1f, man = h & 0x3ffu;
  if (exp == 0x1f) return f32_from_bits(sign | 0x7f800000u | (man << 13));  // inf, nan
  if (exp == 0) {
    if (man == 0) return f32_from_bits(sign);
    // Subnormal half: value is man * 2^-24, exact in float32.
    float v = static_cast<float>(man) * 5.9604644775390625e-08f;
    return sign ? -v : v;
  }
  return f32_from_bits(sign | ((exp + 112) << 23) | (man << 13));
}

inline std::uint16_t float_to_half(float f) {
  std::uint32_t x = f32_bits(f);
  std::uint16_t sign = static_cast<std::uint16_t>((x >> 16) & 0x8000u);
  std::uint32_t ax = x & 0x7fffffffu;
  // inf, or a NaN as NumPy's npy_floatbits_to_halfbits makes it: the top 10
  // bits of the payload, quiet or signaling as they were (a float16 NaN goes
  // through float and back unchanged), never a payload of 0 (an infinity).
  if (ax >= 0x7f800000u) {
    if (ax == 0x7f800000u) return sign | 0x7c00u;
    const std::uint16_t nan = static_cast<std::uint16_t>(0x7c00u | ((ax >> 13) & 0x3ffu));
    return sign | (nan == 0x7c00u ? 0x7c01u : nan);
  }
  if (ax >= 0x477ff000u) return sign | 0x7c00u;  // rounds to >= 65520: overflow to inf
  if (ax < 0x38800000u) {                         // below the smallest normal half: subnormal or 0
    if (ax < 0x33000000u) return sign;            // < 2^-25 rounds to 0
    std::uint32_t e = ax >> 23, m = (ax & 0x7fffffu) | 0x800000u;
    std::uint32_t shift = 126 - e;  // m * 2^(e-150) expressed in units of 2^-24
    std::uint32_t q = m >> shift, rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1u))) ++q;
    return sign | static_cast<std::uint16_t>(q);
  }
  std::uint32_t q = ax - 0x38000000u;  // rebias exponent 127 -> 15
  std::uint32_t rem = q & 0x1fffu;
  q >>= 13;
  if (rem > 0x1000u || (rem == 0x1000u && (q & 1u))) ++q;
  return sign | static_cast<std::uint16_t>(q);
}

inline float bfloat16_to_float(std::uint16_t b) { return f32_from_bits(static_cast<std::uint32_t>(b) << 16); }

inline std::uint16_t float_to_bfloat16(float f) {
  std::uint32_t x = f32_bits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((x >> 16) | 0x40u);  // quiet nan
  x += 0x7fffu + ((x >> 16) & 1u);
  return static_cast<std::uint16_t>(x >> 16);
}

}  // namespace cujit

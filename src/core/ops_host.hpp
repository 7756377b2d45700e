// The operations' scalar semantics for the host: templates/*.cuh, the same
// files NVRTC compiles into every kernel, compiled as host C++. The CPU
// evaluator calls these functions (through ops.def's impl column), so the two
// back ends share one definition of every operation.
//
// What NVRTC provides and a host compiler does not is stood in for here by
// host functions with PTX's documented behaviour: the qualifiers, the
// round-to-nearest products (no FMA contraction on either side), bit casts,
// the saturating float -> int conversions and the float16 conversions (PTX
// cvt, here src/half.hpp's). checks.cuh (atomics) is device-only.
#pragma once
#include <math.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "core/half.hpp"

#ifndef __host__
#define __host__
#endif
#ifndef __device__
#define __device__
#endif
#ifndef __forceinline__
#define __forceinline__ inline
#endif
#ifndef __noinline__
#define __noinline__
#endif
#ifndef __USE_FAST_MATH__
#define __USE_FAST_MATH__ 0
#endif

namespace cujit::host_shim {
template <class To, class From> inline To bits_as(From f) {
  To t;
  std::memcpy(&t, &f, sizeof t);
  return t;
}
// cvt.rzi.{s,u}{32,64}.f{32,64}: truncate, saturate, NaN gives 0 (PTX ISA, cvt).
template <class I, class F> inline I sat_trunc(F x) {
  if (x != x) return 0;
  if (x <= static_cast<F>(std::numeric_limits<I>::min())) return std::numeric_limits<I>::min();
  if (x >= static_cast<F>(std::numeric_limits<I>::max())) return std::numeric_limits<I>::max();
  return static_cast<I>(x);
}
}  // namespace cujit::host_shim

inline float __fmul_rn(float a, float b) { return a * b; }
inline double __dmul_rn(double a, double b) { return a * b; }
inline float __int_as_float(int x) { return cujit::host_shim::bits_as<float>(x); }
inline float __uint_as_float(unsigned x) { return cujit::host_shim::bits_as<float>(x); }
inline int __float_as_int(float x) { return cujit::host_shim::bits_as<int>(x); }
inline unsigned __float_as_uint(float x) { return cujit::host_shim::bits_as<unsigned>(x); }
inline double __longlong_as_double(long long x) { return cujit::host_shim::bits_as<double>(x); }
inline long long __double_as_longlong(double x) { return cujit::host_shim::bits_as<long long>(x); }
inline int __float2int_rz(float x) { return cujit::host_shim::sat_trunc<int>(x); }
inline int __double2int_rz(double x) { return cujit::host_shim::sat_trunc<int>(x); }
inline unsigned __float2uint_rz(float x) { return cujit::host_shim::sat_trunc<unsigned>(x); }
inline unsigned __double2uint_rz(double x) { return cujit::host_shim::sat_trunc<unsigned>(x); }
inline long long __float2ll_rz(float x) { return cujit::host_shim::sat_trunc<long long>(x); }
inline long long __double2ll_rz(double x) { return cujit::host_shim::sat_trunc<long long>(x); }
inline unsigned long long __float2ull_rz(float x) { return cujit::host_shim::sat_trunc<unsigned long long>(x); }
inline unsigned long long __double2ull_rz(double x) { return cujit::host_shim::sat_trunc<unsigned long long>(x); }
inline float __double2float_rz(double d) {
  float f = static_cast<float>(d);
  if (std::isfinite(d) && std::fabs(static_cast<double>(f)) > std::fabs(d)) f = std::nextafter(f, 0.0f);
  return f;
}
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }

// half.cuh takes its PTX conversions from here: cvt.rn rounds to nearest even,
// and a double is rounded once (to odd in float, then to float16).
#define CJ_HOST_SHIM 1
namespace cj {
// Exact and branch-free, so that the evaluator's conversion loops vectorize:
// the exponent and mantissa bits shifted into a float's place are the value
// times 2^-112 (subnormals included, as float subnormals), NaN and inf aside.
inline float cvt_f32_f16(unsigned short h) {
  const unsigned em = h & 0x7fffu;
  const float scaled = __uint_as_float(em << 13) * 0x1p112f;
  const unsigned mag = em >= 0x7c00u ? 0x7f800000u | (em << 13) : __float_as_uint(scaled);
  return __uint_as_float(mag | (static_cast<unsigned>(h & 0x8000u) << 16));
}
inline unsigned short cvt_rn_f16_f32(float f) { return cujit::float_to_half(f); }
inline unsigned short cvt_rn_f16_f64(double d) {
  float f = __double2float_rz(d);
  if (static_cast<double>(f) != d && std::fabs(f) < std::numeric_limits<float>::infinity())
    f = __uint_as_float(__float_as_uint(f) | 1u);
  return cujit::float_to_half(f);
}
inline float cvt_rn_f16_roundtrip(float f) { return cujit::half_to_float(cujit::float_to_half(f)); }
}  // namespace cj

#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wtype-limits"
#pragma GCC diagnostic ignored "-Wunused-function"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#include "prelude.cuh"
#include "half.cuh"
#include "int_ops.cuh"
#include "math.cuh"
#include "cast.cuh"
#include "complex.cuh"
#include "complex_math.cuh"
#pragma GCC diagnostic pop

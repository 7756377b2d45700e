// Host element types and the cast of the language: the conversions the CPU
// evaluator applies to stored values and code generation applies to constants.
// The operations themselves are defined once, in templates/*.cuh (see ops.def).
#pragma once
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "cujit/dtype.hpp"
#include "half.hpp"

namespace cujit::scalar {

struct Half { std::uint16_t bits = 0; };
struct BF16 { std::uint16_t bits = 0; };

// Calls f(T{}) with the C++ element type of a dtype (16-bit floats as their
// bit-pattern wrappers): the one dispatch from a runtime dtype to a template.
template <class F> decltype(auto) visit(DType t, F&& f) {
  switch (t) {
    case DType::Bool: return f(bool{});
    case DType::Int8: return f(std::int8_t{});
    case DType::Int16: return f(std::int16_t{});
    case DType::Int32: return f(std::int32_t{});
    case DType::Int64: return f(std::int64_t{});
    case DType::UInt8: return f(std::uint8_t{});
    case DType::UInt16: return f(std::uint16_t{});
    case DType::UInt32: return f(std::uint32_t{});
    case DType::UInt64: return f(std::uint64_t{});
    case DType::Float16: return f(Half{});
    case DType::BFloat16: return f(BF16{});
    case DType::Float32: return f(float{});
    case DType::Float64: return f(double{});
    case DType::Complex64: return f(std::complex<float>{});
    default: return f(std::complex<double>{});
  }
}

template <class T> struct is_cplx : std::false_type {};
template <class T> struct is_cplx<std::complex<T>> : std::true_type {};
template <class T> inline constexpr bool is_cplx_v = is_cplx<T>::value;
template <class T> inline constexpr bool is_int_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// double -> float rounding to odd, so that a second rounding to a 16-bit
// float is correctly rounded (no double rounding).
inline float to_float_odd(double d) {
  float f = static_cast<float>(d);
  if (static_cast<double>(f) != d && std::isfinite(f)) {
    std::uint32_t b = f32_bits(f);
    if (!(b & 1u)) {
      float t = std::nextafter(f, static_cast<double>(f) < d ? std::numeric_limits<float>::infinity()
                                                              : -std::numeric_limits<float>::infinity());
      f = t;
    }
  }
  return f;
}

// Reads any element type as the value it stands for (16-bit floats as float).
template <class T> auto widen(T v) {
  if constexpr (std::is_same_v<T, Half>) return half_to_float(v.bits);
  else if constexpr (std::is_same_v<T, BF16>) return bfloat16_to_float(v.bits);
  else return v;
}

// The cast of the language: C++'s conversion, except that float -> int
// truncates and saturates (NaN gives 0) as CUDA's cvt.rzi.sat does, and
// complex -> real keeps the real part.
template <class To, class From> To cast(From v0) {
  auto v = widen(v0);
  using V = decltype(v);
  if constexpr (is_cplx_v<V> && !is_cplx_v<To>) {
    if constexpr (std::is_same_v<To, bool>) return v.real() != 0 || v.imag() != 0;
    else return cast<To>(v.real());
  } else if constexpr (std::is_same_v<To, bool>) {
    return v != V(0);
  } else if constexpr (is_int_v<To> && std::is_floating_point_v<V>) {
    if (v != v) return 0;
    double d = static_cast<double>(v);
    constexpr double lo = static_cast<double>(std::numeric_limits<To>::min());
    constexpr double hi = static_cast<double>(std::numeric_limits<To>::max());
    if (d <= lo) return std::numeric_limits<To>::min();
    if (d >= hi) return std::numeric_limits<To>::max();
    return static_cast<To>(d);
  } else if constexpr (std::is_same_v<To, Half>) {
    if constexpr (std::is_same_v<V, float>) return Half{float_to_half(v)};
    else return Half{float_to_half(to_float_odd(static_cast<double>(v)))};
  } else if constexpr (std::is_same_v<To, BF16>) {
    if constexpr (std::is_same_v<V, float>) return BF16{float_to_bfloat16(v)};
    else return BF16{float_to_bfloat16(to_float_odd(static_cast<double>(v)))};
  } else if constexpr (is_cplx_v<To>) {
    using P = typename To::value_type;
    if constexpr (is_cplx_v<V>) return To(static_cast<P>(v.real()), static_cast<P>(v.imag()));
    else return To(static_cast<P>(v), P(0));
  } else {
    return static_cast<To>(v);
  }
}

template <class T> bool truth(T v) { return cast<bool>(v); }

}  // namespace cujit::scalar

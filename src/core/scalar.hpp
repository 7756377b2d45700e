// Host element types and the cast of the language on them, for the values
// the host converts itself (constants, scalar arguments). The cast and the
// operations are defined once, in templates/*.cuh (see ops.def), which
// cpu/ops_host.hpp compiles as host C++.
#pragma once
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "cujit/dtype.hpp"
#include "core/ops_host.hpp"
#include "core/half.hpp"

namespace cujit::scalar {

struct Half { std::uint16_t bits = 0; };
struct BF16 { std::uint16_t bits = 0; };

// Calls f(T{}) with the C++ element type of a dtype (16-bit floats as their
// bit-pattern wrappers): the one dispatch from a runtime dtype to a template.
template <class F> decltype(auto) visit(DType t, F&& f) {
  switch (t) {
#define DTYPE(Id, name, size, Host, ...) \
  case DType::Id:                          \
    return f(Host{});
#include "core/dtypes.def"
#undef DTYPE
  }
  return f(std::complex<double>{});  // not reached: every DType has a row
}

template <class T> struct is_cplx : std::false_type {};
template <class T> struct is_cplx<std::complex<T>> : std::true_type {};
template <class T> inline constexpr bool is_cplx_v = is_cplx<T>::value;
template <class T> inline constexpr bool is_int_v = std::is_integral_v<T> && !std::is_same_v<T, bool>;

// The template types standing for a host element type (cj_i64 is long long
// where std::int64_t is long; complex values are cj::c64/c128, 16-bit floats
// their tags).
template <class T> struct cj_of { using type = T; };
template <> struct cj_of<std::int64_t> { using type = cj_i64; };
template <> struct cj_of<std::uint64_t> { using type = cj_u64; };
template <> struct cj_of<std::complex<float>> { using type = cj::c64; };
template <> struct cj_of<std::complex<double>> { using type = cj::c128; };
template <> struct cj_of<Half> { using type = cj::f16_tag; };
template <> struct cj_of<BF16> { using type = cj::bf16_tag; };

// Reads any element type as the value it stands for, in the templates' types
// (16-bit floats as float).
template <class T> auto widen(T v) {
  if constexpr (std::is_same_v<T, Half>) return cj::h2f(v.bits);
  else if constexpr (std::is_same_v<T, BF16>) return cj::b2f(v.bits);
  else if constexpr (is_cplx_v<T>) return cj::cpack(v.real(), v.imag());
  else return static_cast<typename cj_of<T>::type>(v);
}

// The cast of the language on host values: templates/cast.cuh's cj::cast,
// the one the CPU evaluator and generated kernels call.
template <class To, class From> To cast(From v0) {
  auto v = widen(v0);
  using V = decltype(v);
  using T = typename cj_of<To>::type;
  if constexpr (std::is_same_v<To, Half> || std::is_same_v<To, BF16>) {
    return To{cj::conv_<T, V>::bits(v)};
  } else if constexpr (is_cplx_v<To>) {
    auto r = cj::cast<T>(v);
    return To(r.re, r.im);
  } else {
    return static_cast<To>(cj::cast<T>(v));
  }
}

template <class T> bool truth(T v) { return cast<bool>(v); }

}  // namespace cujit::scalar

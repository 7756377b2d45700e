// An independent host statement of NumPy's scalar rules (Python rounding of
// integer division, npy_divmod, NumPy's complex algorithms, NaN handling of
// maximum/fmax, ...), written from NumPy's sources. The library defines every
// operation once, in templates/*.cuh; test_codegen_host.cpp holds those
// definitions to this one value by value.
#pragma once
#include <cmath>
#include <complex>
#include <cstdint>
#include <limits>
#include <type_traits>

#include "core/scalar.hpp"

namespace cujit::scalar {

// ---- the cast of the language: NumPy's astype, float -> int truncating and
// saturating (NaN gives 0, as CUDA's cvt.rzi.sat), complex -> real keeping
// the real part, 16-bit floats rounded once from the exact value ----

// double -> float rounding to odd, so that a second rounding to a 16-bit
// float is correctly rounded (no double rounding).
inline float to_float_odd(double d) {
  float f = static_cast<float>(d);
  if (static_cast<double>(f) != d && std::isfinite(f)) {
    std::uint32_t b = f32_bits(f);
    if (!(b & 1u))
      f = std::nextafter(f, static_cast<double>(f) < d ? std::numeric_limits<float>::infinity()
                                                        : -std::numeric_limits<float>::infinity());
  }
  return f;
}

template <class T> auto ref_widen(T v) {
  if constexpr (std::is_same_v<T, Half>) return half_to_float(v.bits);
  else if constexpr (std::is_same_v<T, BF16>) return bfloat16_to_float(v.bits);
  else return v;
}

template <class To, class From> To ref_cast(From v0) {
  auto v = ref_widen(v0);
  using V = decltype(v);
  if constexpr (is_cplx_v<V> && !is_cplx_v<To>) {
    if constexpr (std::is_same_v<To, bool>) return v.real() != 0 || v.imag() != 0;
    else return ref_cast<To>(v.real());
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

// ---- integer arithmetic wraps (two's complement), as NumPy's does ----
template <class T> T wrap_add(T a, T b) { using U = std::make_unsigned_t<T>; return static_cast<T>(static_cast<U>(a) + static_cast<U>(b)); }
template <class T> T wrap_sub(T a, T b) { using U = std::make_unsigned_t<T>; return static_cast<T>(static_cast<U>(a) - static_cast<U>(b)); }
template <class T> T wrap_mul(T a, T b) {
  using U = std::make_unsigned_t<T>;
  using W = std::conditional_t<(sizeof(U) < sizeof(unsigned)), unsigned, U>;  // no int promotion UB
  return static_cast<T>(static_cast<U>(static_cast<W>(static_cast<U>(a)) * static_cast<W>(static_cast<U>(b))));
}
template <class T> T wrap_neg(T a) { return wrap_sub(T(0), a); }

// NumPy's floor_divide and remainder on ints: Python's rounding; x // 0 and x % 0 give 0.
template <class T> T int_floordiv(T a, T b) {
  if (b == 0) return 0;
  if constexpr (std::is_signed_v<T>) {
    if (a == std::numeric_limits<T>::min() && b == T(-1)) return a;  // wraps, as NumPy
    T q = static_cast<T>(a / b);
    if ((a % b != 0) && ((a < 0) != (b < 0))) --q;
    return q;
  } else {
    return static_cast<T>(a / b);
  }
}
template <class T> T int_remainder(T a, T b) {
  if (b == 0) return 0;
  if constexpr (std::is_signed_v<T>) {
    if (b == T(-1)) return 0;
    T r = static_cast<T>(a % b);
    if (r != 0 && ((r < 0) != (b < 0))) r = static_cast<T>(r + b);
    return r;
  } else {
    return static_cast<T>(a % b);
  }
}
template <class T> T int_fmod(T a, T b) {
  if (b == 0) return 0;
  if constexpr (std::is_signed_v<T>)
    if (b == T(-1)) return 0;
  return static_cast<T>(a % b);
}
// NumPy raises for an integer to a negative power; a kernel cannot, so it gives
// the truncated value of 1/a**-b: 1 for a == 1, +-1 for a == -1, else 0.
template <class T> T int_power(T a, T b) {
  if constexpr (std::is_signed_v<T>) {
    if (b < 0) {
      if (a == 1) return 1;
      if (a == T(-1)) return (b % 2) ? T(-1) : T(1);
      return 0;
    }
  }
  T r = 1;
  while (b) {
    if (b & 1) r = wrap_mul(r, a);
    a = wrap_mul(a, a);
    b = static_cast<T>(b >> 1);
  }
  return r;
}
// NumPy's shifts: a count outside [0, width) gives 0 (or -1 for a negative a shifted right).
template <class T> T int_shl(T a, T b) {
  using U = std::make_unsigned_t<T>;
  if (static_cast<std::uint64_t>(static_cast<std::int64_t>(b)) >= sizeof(T) * 8) return 0;
  return static_cast<T>(static_cast<U>(static_cast<U>(a) << b));
}
template <class T> T int_shr(T a, T b) {
  if (static_cast<std::uint64_t>(static_cast<std::int64_t>(b)) >= sizeof(T) * 8) {
    if constexpr (std::is_signed_v<T>) return a < 0 ? T(-1) : T(0);
    return 0;
  }
  return static_cast<T>(a >> b);
}
template <class T> T int_reciprocal(T a) {
  if (a == 0) return 0;  // NumPy's value is platform-defined (with a warning); cujit defines 0
  return static_cast<T>(T(1) / a);
}

// ---- floating point: NumPy's npy_divmod ----
template <class T> T float_floordiv(T a, T b) {
  if (b == 0) return a / b;
  T mod = std::fmod(a, b);
  T div = (a - mod) / b;
  if (mod != 0) {
    if ((b < 0) != (mod < 0)) div -= T(1);
  }
  if (div != 0) {
    T fl = std::floor(div);
    if (div - fl > T(0.5)) fl += T(1);
    return fl;
  }
  return std::copysign(T(0), a / b);
}
template <class T> T float_remainder(T a, T b) {
  if (b == 0) return std::fmod(a, b);
  T mod = std::fmod(a, b);
  if (mod != 0) {
    if ((b < 0) != (mod < 0)) mod += b;
  } else {
    mod = std::copysign(T(0), b);
  }
  return mod;
}

// Complex ordering is lexicographic, as NumPy's.
template <class T> bool lt(T a, T b) {
  if constexpr (is_cplx_v<T>) return a.real() < b.real() || (a.real() == b.real() && a.imag() < b.imag());
  else return a < b;
}
template <class T> bool is_nan(T a) {
  if constexpr (is_cplx_v<T>) return a.real() != a.real() || a.imag() != a.imag();
  else if constexpr (std::is_floating_point_v<T>) return a != a;
  else return false;
}
// maximum/minimum propagate NaN; fmax/fmin ignore it.
// Of -0.0 and 0.0 the second, as NumPy's float32/float64 loops; complex
// values (lexicographic) the first, as its complex loops.
template <class T> T maximum(T a, T b) {
  if (is_nan(a)) return a;
  if (is_nan(b)) return b;
  if constexpr (std::is_same_v<T, bool>) return a || b;
  else if constexpr (std::is_floating_point_v<T>) return lt(b, a) ? a : b;
  else return lt(a, b) ? b : a;
}
template <class T> T minimum(T a, T b) {
  if (is_nan(a)) return a;
  if (is_nan(b)) return b;
  if constexpr (std::is_same_v<T, bool>) return a && b;
  else if constexpr (std::is_floating_point_v<T>) return lt(a, b) ? a : b;
  else return lt(b, a) ? b : a;
}
template <class T> T fmax(T a, T b) {
  if (is_nan(b)) return a;
  if (is_nan(a)) return b;
  return maximum(a, b);
}
template <class T> T fmin(T a, T b) {
  if (is_nan(b)) return a;
  if (is_nan(a)) return b;
  return minimum(a, b);
}

// ---- complex: NumPy's own algorithms (textbook product, Smith's quotient),
// not C99 Annex G's, so infinities and NaNs come out as NumPy's do ----
// NumPy's array product: one fused multiply-add a part (its SIMD fmaddsub);
// its scalar paths (powers of 3 and more) the textbook formula.
template <class P> std::complex<P> cmul(std::complex<P> a, std::complex<P> b) {
  const P bd = a.imag() * b.imag(), bc = a.imag() * b.real();
  return {std::fma(a.real(), b.real(), -bd), std::fma(a.real(), b.imag(), bc)};
}
template <class P> std::complex<P> cmul_textbook(std::complex<P> a, std::complex<P> b) {
  return {a.real() * b.real() - a.imag() * b.imag(), a.real() * b.imag() + a.imag() * b.real()};
}
template <class P> std::complex<P> cdiv(std::complex<P> a, std::complex<P> b) {
  P ar = a.real(), ai = a.imag(), br = b.real(), bi = b.imag();
  P abr = std::fabs(br), abi = std::fabs(bi);
  if (abr >= abi) {
    if (abr == 0 && abi == 0) return {ar / abr, ai / abi};
    P rat = bi / br, scl = P(1) / (br + bi * rat);
    return {(ar + ai * rat) * scl, (ai - ar * rat) * scl};
  }
  P rat = br / bi, scl = P(1) / (bi + br * rat);
  return {(ar * rat + ai) * scl, (ai * rat - ar) * scl};
}
template <class P> std::complex<P> creciprocal(std::complex<P> a) {
  P r = a.real(), i = a.imag();
  if (std::fabs(i) <= std::fabs(r)) {
    P q = i / r, d = r + i * q;
    return {P(1) / d, -q / d};
  }
  P q = r / i, d = r * q + i;
  return {q / d, P(-1) / d};
}
template <class P> std::complex<P> cexpm1(std::complex<P> z) {
  P a = std::sin(z.imag() / 2);
  return {std::expm1(z.real()) * std::cos(z.imag()) - 2 * a * a, std::exp(z.real()) * std::sin(z.imag())};
}
template <class P> std::complex<P> clog1p(std::complex<P> z) {
  P l = std::hypot(z.real() + 1, z.imag());
  return {std::log(l), std::atan2(z.imag(), z.real() + 1)};
}
// NumPy's npy_cpow: exact small integer powers by repeated products, else exp(b*log(a)).
template <class P> std::complex<P> cpow(std::complex<P> a, std::complex<P> b) {
  using C = std::complex<P>;
  const P nan = std::numeric_limits<P>::quiet_NaN();
  if (b.real() == 0 && b.imag() == 0) return {1, 0};
  if (a.real() == 0 && a.imag() == 0) return b.real() > 0 ? C(0, 0) : C(nan, nan);  // NumPy 2.4
  if (b.imag() == 0 && b.real() > -100 && b.real() < 100 && b.real() == std::trunc(b.real())) {
    long n = static_cast<long>(b.real());
    if (n == 1) return a;
    if (n == 2) return cmul(a, a);
    if (n == 3) return cmul_textbook(a, cmul_textbook(a, a));
    C acc(1, 0), p = a;
    long m = n < 0 ? -n : n;
    for (long mask = 1;; mask <<= 1) {
      if (m & mask) acc = cmul_textbook(acc, p);
      if (m < (mask << 1)) break;
      p = cmul_textbook(p, p);
    }
    return n < 0 ? cdiv(C(1, 0), acc) : acc;
  }
  return std::exp(b * std::log(a));
}

// Real pow, with the exponents where it is one correctly rounded operation
// computed as that operation: NumPy's x ** 0.5, x ** 2, x ** -1 (a Python
// scalar exponent) are sqrt, square and reciprocal, and glibc's pow, though
// within 0.52 ulp, is not always the correctly rounded sqrt; an ulp there
// grows in what follows (x ** y ** 0.5). pow(x, 0.5) differs from sqrt(x) only
// at -0 and -inf, which take pow. templates/math.cuh's fpow is the same.
template <class T> T fpow(T a, T b) {
  if (b == T(0.5) && a > T(0)) return std::sqrt(a);
  if (b == T(2)) return a * a;
  if (b == T(-1)) return T(1) / a;
  return std::pow(a, b);
}

template <class T> T sign(T a) {
  if constexpr (is_cplx_v<T>) {
    using P = typename T::value_type;
    const P nan = std::numeric_limits<P>::quiet_NaN();
    bool ri = std::isinf(a.real()), ii = std::isinf(a.imag());
    // NumPy 2: one infinite part gives that axis's unit, whatever the other part is.
    if (ri != ii) return ri ? T(std::copysign(P(1), a.real()), 0) : T(0, std::copysign(P(1), a.imag()));
    if (ri || is_nan(a)) return T(nan, nan);
    P m = std::abs(a);
    if (m == 0) return T(0, 0);
    return cdiv(a, T(m, 0));
  } else if constexpr (std::is_floating_point_v<T>) {
    return a > 0 ? T(1) : a < 0 ? T(-1) : a == 0 ? T(0) : a;
  } else if constexpr (std::is_signed_v<T>) {
    return a > 0 ? T(1) : a < 0 ? T(-1) : T(0);
  } else {
    return a > 0 ? T(1) : T(0);
  }
}

}  // namespace cujit::scalar

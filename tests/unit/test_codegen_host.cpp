// The device helpers of templates/*.cuh compiled as host C++ (as the CPU
// evaluator compiles them) and held to scalar_oracle.hpp value by value: integer
// arithmetic exhaustively for 8-bit types and on edge values for the others,
// NumPy's float division rules, float -> int casts, bfloat16 rounding, complex
// arithmetic exactly, the complex elementary functions within a few ulp of
// the C++ library (glibc's, as NumPy's) and with its special values (which
// parts are NaN, infinite or zero, and their signs) on a grid of infinities,
// NaNs, zeros, tiny, huge and ordinary parts. The CUDA intrinsics they use are
// stood in for by host functions with PTX's documented behaviour (float16's
// cvt by src/half.hpp, so its rounding is left to the GPU tests, except for
// NaNs, which half.cuh converts on the bits); checks.cuh (atomics) is left to
// the GPU tests too.
#include <math.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "scalar_oracle.hpp"

// The templates as the CPU evaluator compiles them (the host stand-ins for what NVRTC provides).
#include "core/ops_host.hpp"


using namespace cujit;
using cujit::host_shim::bits_as;

namespace {

template <class T> std::vector<T> int_edges() {
  using L = std::numeric_limits<T>;
  std::vector<T> v = {T(0), T(1), T(2), T(3), T(7), L::max(), T(L::max() - 1), L::min(), T(L::min() + 1), T(L::max() / 2)};
  if (L::is_signed) v.insert(v.end(), {T(-1), T(-2), T(-3), T(-7), T(L::min() / 2)});
  for (int s : {8, 15, 16, 31, 32, 63, 64, 65, 100}) v.push_back(static_cast<T>(s));
  std::mt19937_64 rng(42);
  for (int k = 0; k < 200; ++k) v.push_back(static_cast<T>(rng()));
  return v;
}

template <class T> void check_int_ops() {
  using namespace scalar;
  std::vector<T> vals;
  if (sizeof(T) == 1) {
    for (int k = 0; k < 256; ++k) vals.push_back(static_cast<T>(k));
  } else {
    vals = int_edges<T>();
  }
  std::size_t bad = 0;
  for (T a : vals) {
    bad += cj::wneg(a) != wrap_neg(a);
    bad += cj::isquare(a) != wrap_mul(a, a);
    bad += cj::ireciprocal(a) != int_reciprocal(a);
    if constexpr (std::is_signed_v<T>) bad += cj::iabs(a) != (a < 0 ? wrap_neg(a) : a);
    bad += cj::sign(a) != scalar::sign(a);
    for (T b : vals) {
      bad += cj::wadd(a, b) != wrap_add(a, b);
      bad += cj::wsub(a, b) != wrap_sub(a, b);
      bad += cj::wmul(a, b) != wrap_mul(a, b);
      bad += cj::ifloordiv(a, b) != int_floordiv(a, b);
      bad += cj::iremainder(a, b) != int_remainder(a, b);
      bad += cj::ifmod(a, b) != int_fmod(a, b);
      bad += cj::ipow(a, b) != int_power(a, b);
      bad += cj::shl(a, b) != int_shl(a, b);
      bad += cj::shr(a, b) != int_shr(a, b);
      bad += cj::maximum(a, b) != scalar::maximum(a, b);
      bad += cj::minimum(a, b) != scalar::minimum(a, b);
      if (bad) {
        INFO(+a << " op " << +b);
        REQUIRE(bad == 0);
      }
    }
  }
  CHECK(bad == 0);
}

template <class F> std::vector<F> float_edges() {
  using L = std::numeric_limits<F>;
  std::vector<F> v = {F(0), -F(0), F(1), F(-1), F(0.5), F(-0.5), F(1.5), F(-2.5), F(3), F(-3), F(7.25), F(-1e-30),
                      F(1e30), F(-1e30), L::infinity(), -L::infinity(), L::quiet_NaN(), L::denorm_min(), L::max(),
                      L::lowest(), L::min(), F(255.9), F(256), F(-128.5), F(-129), F(65535.5), F(65536), F(2147483520.0),
                      F(4294967040.0), F(-2147483904.0), F(9.2233715e18), F(1.8446743e19), F(-9.2233731e18)};
  std::mt19937 rng(7);
  std::uniform_real_distribution<double> d(-40, 40);
  for (int k = 0; k < 100; ++k) v.push_back(static_cast<F>(d(rng)));
  return v;
}

template <class F> bool same(F a, F b) { return (a != a && b != b) || (a == b && std::signbit(a) == std::signbit(b)); }

template <class F> void check_float_ops() {
  std::vector<F> vals = float_edges<F>();
  for (F a : vals) {
    CHECK(cj::isnan_(a) == std::isnan(a));
    CHECK(cj::isinf_(a) == std::isinf(a));
    CHECK(cj::isfinite_(a) == std::isfinite(a));
    CHECK(cj::signbit_(a) == std::signbit(a));
    CHECK(same(cj::sign(a), scalar::sign(a)));
    CHECK(cj::truth(a) == scalar::truth(a));
    for (F b : vals) {
      INFO(a << " op " << b);
      CHECK(same(cj::ffloordiv(a, b), scalar::float_floordiv(a, b)));
      CHECK(same(cj::fremainder(a, b), scalar::float_remainder(a, b)));
      CHECK(same(cj::maximum(a, b), scalar::maximum(a, b)));
      CHECK(same(cj::minimum(a, b), scalar::minimum(a, b)));
      CHECK(same(cj::fmax_(a, b), scalar::fmax(a, b)));
      CHECK(same(cj::fmin_(a, b), scalar::fmin(a, b)));
    }
  }
}

template <class I, class F> void check_f2i() {
  for (F x : float_edges<F>()) {
    INFO(x);
    CHECK(cj::f2i<I>(x) == scalar::ref_cast<I>(x));
  }
}

template <class P> bool close(P got, P want, P ulps) {
  if (std::isnan(want)) return std::isnan(got);
  if (std::isinf(want)) return got == want;
  P scale = std::max(std::fabs(want), std::numeric_limits<P>::min());
  return std::fabs(got - want) <= ulps * std::numeric_limits<P>::epsilon() * scale;
}

// Complex results within `ulps` of the larger component (the contract's complex accuracy).
template <class P> bool close_c(cj::complex<P> g, std::complex<P> w, P ulps) {
  if (std::isnan(w.real()) || std::isnan(w.imag()) || std::isinf(w.real()) || std::isinf(w.imag()))
    return close(g.re, w.real(), ulps) && close(g.im, w.imag(), ulps);
  P m = std::max(std::fabs(w.real()), std::fabs(w.imag()));
  P tol = ulps * std::numeric_limits<P>::epsilon() * std::max(m, std::numeric_limits<P>::min());
  return std::fabs(g.re - w.real()) <= tol && std::fabs(g.im - w.imag()) <= tol;
}

template <class P> std::vector<std::complex<P>> complex_points() {
  std::vector<P> parts = {P(0), -P(0), P(1e-20), P(-1e-8), P(0.25), P(-0.5), P(0.999), P(1), P(-1), P(1.001), P(2), P(-3.5),
                          P(10), P(-40), P(1e5), P(-1e10)};
  std::vector<std::complex<P>> z;
  for (P a : parts)
    for (P b : parts) z.emplace_back(a, b);
  return z;
}

template <class P> cj::complex<P> to_cj(std::complex<P> z) { return cj::cpack(z.real(), z.imag()); }
template <class P> bool same_c(cj::complex<P> g, std::complex<P> w) { return same(g.re, w.real()) && same(g.im, w.imag()); }

template <class P> void check_complex() {
  using C = std::complex<P>;
  const P inf = std::numeric_limits<P>::infinity(), nan = std::numeric_limits<P>::quiet_NaN();
  std::vector<C> pts = complex_points<P>();
  std::vector<C> special = {C(inf, 0), C(-inf, 1), C(1, inf), C(nan, 0), C(0, nan), C(inf, inf), C(-inf, nan), C(nan, nan),
                            C(inf, -2), C(0, -inf)};
  // NumPy's arithmetic, exactly as src/scalar.hpp computes it.
  for (const std::vector<C>* set : {&pts, &special})
    for (C a : *set) {
      INFO(a);
      CHECK(same_c(cj::reciprocal(to_cj(a)), scalar::creciprocal(a)));
      CHECK(same_c(cj::sign(to_cj(a)), scalar::sign(a)));
      CHECK(same_c(cj::square(to_cj(a)), scalar::cmul(a, a)));
      CHECK(cj::isnan_(to_cj(a)) == scalar::is_nan(a));
      for (C b : *set) {
        INFO(b);
        CHECK(same_c(cj::mul(to_cj(a), to_cj(b)), scalar::cmul(a, b)));
        CHECK(same_c(cj::div(to_cj(a), to_cj(b)), scalar::cdiv(a, b)));
        CHECK(same_c(cj::maximum(to_cj(a), to_cj(b)), scalar::maximum(a, b)));
        CHECK(same_c(cj::minimum(to_cj(a), to_cj(b)), scalar::minimum(a, b)));
        CHECK(cj::lt(to_cj(a), to_cj(b)) == (!scalar::is_nan(a) && !scalar::is_nan(b) && scalar::lt(a, b)));
        CHECK(cj::le(to_cj(a), to_cj(b)) == (!scalar::is_nan(a) && !scalar::is_nan(b) && (scalar::lt(a, b) || a == b)));
        CHECK(cj::eq(to_cj(a), to_cj(b)) == (a == b));
      }
    }
  // Integer powers are NumPy's repeated products, exactly.
  for (C a : pts)
    for (P e : {P(0), P(1), P(2), P(3), P(4), P(-1), P(-2), P(7), P(-13), P(99)}) {
      INFO(a << " ** " << e);
      CHECK(same_c(cj::pow(to_cj(a), cj::cpack(e, P(0))), scalar::cpow(a, C(e, 0))));
    }
  // Elementary functions: within 4 ulp (of the larger component) of glibc's,
  // which NumPy uses on Linux. exp, sqrt, the hyperbolic and circular functions
  // follow glibc's algorithms (<= 1 ulp apart here); log is within 2; Kahan's
  // inverse functions within 3.5 (glibc's are more elaborate). The GPU's own
  // real functions add their documented error on top.
  const P tol = P(4);
  auto fns = std::vector<std::pair<const char*, std::pair<cj::complex<P> (*)(cj::complex<P>), C (*)(C)>>>{
      {"exp", {[](cj::complex<P> z) { return cj::exp(z); }, [](C z) { return std::exp(z); }}},
      {"log", {[](cj::complex<P> z) { return cj::log(z); }, [](C z) { return std::log(z); }}},
      {"sqrt", {[](cj::complex<P> z) { return cj::sqrt(z); }, [](C z) { return std::sqrt(z); }}},
      {"sin", {[](cj::complex<P> z) { return cj::sin(z); }, [](C z) { return std::sin(z); }}},
      {"cos", {[](cj::complex<P> z) { return cj::cos(z); }, [](C z) { return std::cos(z); }}},
      {"tan", {[](cj::complex<P> z) { return cj::tan(z); }, [](C z) { return std::tan(z); }}},
      {"sinh", {[](cj::complex<P> z) { return cj::sinh(z); }, [](C z) { return std::sinh(z); }}},
      {"cosh", {[](cj::complex<P> z) { return cj::cosh(z); }, [](C z) { return std::cosh(z); }}},
      {"tanh", {[](cj::complex<P> z) { return cj::tanh(z); }, [](C z) { return std::tanh(z); }}},
      {"arcsin", {[](cj::complex<P> z) { return cj::asin(z); }, [](C z) { return std::asin(z); }}},
      {"arccos", {[](cj::complex<P> z) { return cj::acos(z); }, [](C z) { return std::acos(z); }}},
      {"arctan", {[](cj::complex<P> z) { return cj::atan(z); }, [](C z) { return std::atan(z); }}},
      {"arcsinh", {[](cj::complex<P> z) { return cj::asinh(z); }, [](C z) { return std::asinh(z); }}},
      {"arccosh", {[](cj::complex<P> z) { return cj::acosh(z); }, [](C z) { return std::acosh(z); }}},
      {"arctanh", {[](cj::complex<P> z) { return cj::atanh(z); }, [](C z) { return std::atanh(z); }}},
      {"expm1", {[](cj::complex<P> z) { return cj::expm1(z); }, [](C z) { return scalar::cexpm1(z); }}},
      {"log1p", {[](cj::complex<P> z) { return cj::log1p(z); }, [](C z) { return scalar::clog1p(z); }}},
  };
  for (auto& [name, f] : fns) {
    int failures = 0;
    for (C z : pts) {
      if (std::abs(z) > P(1e4) && (std::string(name) == "exp" || std::string(name).find("sin") == 0 ||
                                   std::string(name).find("cos") == 0 || std::string(name) == "tan" ||
                                   std::string(name) == "expm1"))
        continue;  // exp of a huge argument: overflow / argument reduction, compared in the GPU tests
      cj::complex<P> g = f.first(to_cj(z));
      C w = f.second(z);
      if (!close_c(g, w, tol)) {
        ++failures;
        UNSCOPED_INFO(name << z << ": got (" << g.re << ", " << g.im << ") want " << w);
      }
    }
    INFO(name);
    CHECK(failures == 0);
  }
  // C99 Annex G special values of the inverse functions.
  const P pi = P(3.14159265358979323846);
  CHECK(same_c(cj::asinh(cj::cpack(inf, P(1))), C(inf, 0)));
  CHECK(same_c(cj::asinh(cj::cpack(P(1), inf)), C(inf, pi / 2)));
  CHECK(same_c(cj::acos(cj::cpack(P(0), P(0))), C(pi / 2, -P(0))));
  CHECK(same_c(cj::acos(cj::cpack(-inf, P(1))), C(pi, -inf)));
  CHECK(same_c(cj::atanh(cj::cpack(P(1), P(0))), C(inf, 0)));
  CHECK(same_c(cj::atanh(cj::cpack(P(2), inf)), C(0, pi / 2)));
  CHECK(same_c(cj::acosh(cj::cpack(P(0), P(0))), C(0, pi / 2)));
  CHECK(same_c(cj::log(cj::cpack(-P(0), P(0))), C(-inf, pi)));
  CHECK((same_c(cj::sqrt(cj::cpack(-inf, nan)), C(nan, inf)) || same_c(cj::sqrt(cj::cpack(-inf, nan)), C(nan, -inf))));

  // Special values: glibc's, part by part (NaN-ness, infinities with their
  // signs, zeros with theirs where both are zero; a NaN's sign is free), and
  // finite values within 8 ulp of the larger part (a subnormal part against a
  // zero one included).
  const P big = std::numeric_limits<P>::max();
  std::vector<P> grid = {P(0), -P(0), inf, -inf, nan, P(1), P(-1), P(0.5), P(-2.5), std::numeric_limits<P>::denorm_min(),
                         -std::numeric_limits<P>::min() / 4, P(1e-3), P(100), P(-100), P(1e30), P(-1e30), big, -big,
                         P(800), P(-3000)};
  auto same_class = [](P g, P w) {
    if (std::isnan(g) || std::isnan(w)) return std::isnan(g) && std::isnan(w);
    if (std::isinf(w) || std::isinf(g)) return g == w;
    if (w == 0 && g == 0) return std::signbit(g) == std::signbit(w);
    return true;  // finite: close_c's business
  };
  for (auto& [name, f] : fns) {
    int failures = 0;
    for (P a : grid)
      for (P b : grid) {
        cj::complex<P> g = f.first(cj::cpack(a, b));
        C w = f.second(C(a, b));
        bool ok = same_class(g.re, w.real()) && same_class(g.im, w.imag());
        if (ok && std::isfinite(w.real()) && std::isfinite(w.imag())) ok = close_c(g, w, P(8));
        if (!ok) {
          ++failures;
          UNSCOPED_INFO(name << "(" << a << ", " << b << "): got (" << g.re << ", " << g.im << ") want " << w);
        }
      }
    INFO(name << " on special values");
    CHECK(failures == 0);
  }

  // Power: NumPy's 0 ** b (0 for Re b > 0, whatever Im b), its integer powers,
  // and exp(b * log a) with C's product (Annex G's infinities) otherwise: special
  // values as glibc's, finite values within 4 ulp times the condition number
  // |b| (|log|a|| + pi) (docs/language.md, Accuracy).
  std::vector<C> bases, exps;
  for (P a : grid)
    for (P b : {P(0), P(1), inf, nan, P(-2.5), P(1e30)}) bases.emplace_back(a, b), exps.emplace_back(b, a);
  for (C b : {C(2, 3), C(0.5, -1), C(1e-3, 7), C(3, 0), C(-2, 0), C(0, 1)}) {
    INFO("0 ** " << b);
    CHECK(same_c(cj::pow(cj::cpack(P(0), P(0)), to_cj(b)), scalar::cpow(C(0, 0), b)));
  }
  int pow_failures = 0;
  for (C a : bases)
    for (C b : exps) {
      cj::complex<P> g = cj::pow(to_cj(a), to_cj(b));
      C w = scalar::cpow(a, b);
      double k = 1 + std::abs(std::complex<double>(b)) * (std::fabs(std::log(std::abs(std::complex<double>(a)))) + 3.2);
      if (!std::isfinite(k)) k = 1;
      bool ok;
      if (k > 1 && (std::isinf(w.real()) || std::isinf(w.imag())))  // overflowed and ill-conditioned
        ok = std::isnan(g.re) == std::isnan(w.real()) && std::isnan(g.im) == std::isnan(w.imag());
      else if (std::isfinite(w.real()) && std::isfinite(w.imag()))
        ok = std::isfinite(g.re) && std::isfinite(g.im) && close_c(g, w, static_cast<P>(4 * k));
      else
        ok = same_class(g.re, w.real()) && same_class(g.im, w.imag());
      if (!ok) {
        ++pow_failures;
        UNSCOPED_INFO(a << " ** " << b << ": got (" << g.re << ", " << g.im << ") want " << w);
      }
    }
  CHECK(pow_failures == 0);
}

}  // namespace

TEST_CASE("device helpers: integer arithmetic matches src/scalar.hpp", "[codegen][host]") {
  check_int_ops<std::int8_t>();
  check_int_ops<std::uint8_t>();
  check_int_ops<std::int16_t>();
  check_int_ops<std::uint16_t>();
  check_int_ops<std::int32_t>();
  check_int_ops<std::uint32_t>();
  check_int_ops<long long>();
  check_int_ops<unsigned long long>();
}

TEST_CASE("device helpers: int64 against uint64 compares exactly", "[codegen][host]") {
  for (long long a : int_edges<long long>())
    for (unsigned long long b : int_edges<unsigned long long>()) {
      bool lt = a < 0 || static_cast<unsigned long long>(a) < b, eq = a >= 0 && static_cast<unsigned long long>(a) == b;
      CHECK(cj::cmp_lt(a, b) == lt);
      CHECK(cj::cmp_le(a, b) == (lt || eq));
      CHECK(cj::cmp_gt(a, b) == !(lt || eq));
      CHECK(cj::cmp_ge(a, b) == !lt);
      CHECK(cj::cmp_eq(a, b) == eq);
      CHECK(cj::cmp_ne(a, b) == !eq);
      CHECK(cj::cmp_lt(b, a) == !(lt || eq));
      CHECK(cj::cmp_ge(b, a) == (lt || eq));
    }
}

TEST_CASE("device helpers: NumPy's float rules match src/scalar.hpp", "[codegen][host]") {
  check_float_ops<float>();
  check_float_ops<double>();
}

TEST_CASE("host float16 conversions: every float16 value read exactly, and back", "[codegen][host]") {
  // The host's stand-in for PTX's cvt.f32.f16 is branch-free (it vectorizes);
  // src/half.hpp's half_to_float is the plain statement of the format.
  long bad = 0;
  for (unsigned h = 0; h < 0x10000u; ++h) {
    float f = cj::h2f(static_cast<cj_u16>(h));
    bad += bits_as<std::uint32_t>(f) != bits_as<std::uint32_t>(half_to_float(static_cast<std::uint16_t>(h)));
    bad += cj::f2h(f) != h;  // NaNs too, signaling ones included (NumPy's rule)
    bad += float_to_half(f) != h;
  }
  CHECK(bad == 0);
}

TEST_CASE("the cast of the language (templates/cast.cuh) is the oracle's for every pair of dtypes", "[codegen][host]") {
  // Sources: float edges, integer edges and complex pairs of them, each made a
  // value of the source dtype by the oracle, then cast to every dtype by the
  // library (scalar::cast calls cj::cast, as the CPU evaluator and the
  // kernels do) and by the oracle; the results must match bit for bit.
  std::vector<std::complex<double>> vals;
  for (double x : float_edges<double>()) vals.emplace_back(x, -x);
  for (double x : {65504.0, 65520.0, 3.3895313892515355e38, 1e-8, 6e-8, 2147483647.0, 2147483648.0, -2147483649.0,
                   4294967295.0, 9223372036854775807.0, -9223372036854775808.0, 18446744073709551615.0, 255.5, -128.5, 0.5})
    vals.emplace_back(x, 1.0);
  long checked = 0, bad = 0;
  for (int f = 0; f < kNumDTypes; ++f)
    for (int t = 0; t < kNumDTypes; ++t)
      scalar::visit(static_cast<DType>(f), [&](auto ftag) {
        using F = decltype(ftag);
        scalar::visit(static_cast<DType>(t), [&](auto ttag) {
          using T = decltype(ttag);
          for (auto z : vals) {
            F x = scalar::ref_cast<F>(z);
            T got = scalar::cast<T>(x), want = scalar::ref_cast<T>(x);
            ++checked;
            if (std::memcmp(&got, &want, sizeof(T)) != 0) {
              ++bad;
              UNSCOPED_INFO(dtype_name(static_cast<DType>(f)) << " -> " << dtype_name(static_cast<DType>(t)) << " of "
                                                              << z.real());
            }
          }
        });
      });
  CHECK(checked > 10000);
  CHECK(bad == 0);
}

TEST_CASE("device helpers: float -> int casts truncate, saturate and send NaN to 0", "[codegen][host]") {
  check_f2i<cj_i8, float>();
  check_f2i<cj_i16, float>();
  check_f2i<cj_i32, float>();
  check_f2i<cj_i64, float>();
  check_f2i<cj_u8, float>();
  check_f2i<cj_u16, float>();
  check_f2i<cj_u32, float>();
  check_f2i<cj_u64, float>();
  check_f2i<cj_i8, double>();
  check_f2i<cj_i16, double>();
  check_f2i<cj_i32, double>();
  check_f2i<cj_i64, double>();
  check_f2i<cj_u8, double>();
  check_f2i<cj_u16, double>();
  check_f2i<cj_u32, double>();
  check_f2i<cj_u64, double>();
}

TEST_CASE("device helpers: bfloat16 rounding from float and from double is src/half.hpp's", "[codegen][host]") {
  std::mt19937_64 rng(3);
  std::vector<double> vals = {0.0, -0.0, 1.0, 1.00390625, 1.005859375, 1.0078125, 3.0e38, 3.4e38, 3.4028235677973366e38,
                              1e300, -1e300, 1e-40, 1e-45, 1e-300, std::numeric_limits<double>::infinity(),
                              std::numeric_limits<double>::quiet_NaN(), 9.2233720368547758e18, 1.0000000596046448};
  for (int k = 0; k < 20000; ++k) {
    double d = std::ldexp(std::uniform_real_distribution<double>(1, 2)(rng), static_cast<int>(rng() % 300) - 150);
    vals.push_back(k % 2 ? -d : d);
    vals.push_back(static_cast<double>(static_cast<float>(d)));  // exact in float
  }
  for (double d : vals) {
    INFO(d);
    CHECK(same(cj::rnd_bf16(d), bfloat16_to_float(scalar::ref_cast<scalar::BF16>(d).bits)));
    float f = static_cast<float>(d);
    CHECK(same(cj::rnd_bf16(f), bfloat16_to_float(scalar::ref_cast<scalar::BF16>(f).bits)));
  }
}

TEST_CASE("device helpers: pow with exponents 0.5, 2 and -1 is the correctly rounded operation", "[codegen][host]") {
  // src/scalar.hpp's fpow exactly; glibc's pow is within 0.52 ulp of it (powf nearly).
  for (double x : float_edges<double>())
    for (double y : {0.5, 2.0, -1.0, 3.0, -0.5}) {
      INFO(x << " ** " << y);
      CHECK(same(cj::fpow(x, y), scalar::fpow(x, y)));
      CHECK(close(cj::fpow(x, y), std::pow(x, y), 1.0));
      const float xf = static_cast<float>(x), yf = static_cast<float>(y);
      CHECK(same(cj::fpow(xf, yf), scalar::fpow(xf, yf)));
    }
  CHECK(cj::fpow(3.0, cj::fpow(9.0, 0.5)) == 27.0);
}

TEST_CASE("device helpers: NaNs keep their sign and payload through 16-bit conversions", "[codegen][host]") {
  // NumPy's copysign(x, -nan) and signbit(-nan) see the sign through float16.
  for (std::uint16_t h : {0x7e00, 0xfe00, 0x7c01, 0xfd23, 0xffff}) {
    INFO(h);
    float f = cj::h2f(static_cast<cj_u16>(h));
    CHECK(std::isnan(f));
    CHECK(bits_as<std::uint32_t>(f) == bits_as<std::uint32_t>(half_to_float(h)));
    CHECK(cj::f2h(f) == float_to_half(f));
    // float -> double quiets a signaling NaN in hardware, where the compiler
    // may fold the oracle's double -> float back: quiet ones only.
    if (h & 0x200u) CHECK(cj::d2h(static_cast<double>(f)) == scalar::ref_cast<scalar::Half>(static_cast<double>(f)).bits);
    double d = -std::numeric_limits<double>::quiet_NaN();
    CHECK(bits_as<std::uint32_t>(cj::rnd_bf16(d)) == bits_as<std::uint32_t>(bfloat16_to_float(scalar::ref_cast<scalar::BF16>(d).bits)));
    CHECK(std::signbit(cj::rnd_bf16(d)));
  }
}

TEST_CASE("device helpers: complex arithmetic is NumPy's, functions are within a few ulp", "[codegen][host]") {
  check_complex<float>();
  check_complex<double>();
}

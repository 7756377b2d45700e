// SLEEF's loops (src/cpu/vector_math.def) against the template functions they
// stand in for, over random bit patterns (every exponent: NaNs, infinities,
// zeros, subnormals, the largest values), magnitudes the programs use, and a
// length that leaves a partial vector; and the hand-written float32 power
// against the correctly rounded one. Where SLEEF is not in use (not
// installed, no AVX2, CUJIT_CPU_MATH=libm) there is nothing to compare.
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "cpu/eval_loops.hpp"
#include "cpu/vector_math.hpp"
#include "lang/builtins.hpp"
#include "skip.hpp"

using namespace cujit;

namespace {

bool sleef_in_use() { return cpu::cpu_math().rfind("SLEEF", 0) == 0; }

template <class T> using Bits = std::conditional_t<sizeof(T) == 4, std::uint32_t, std::uint64_t>;

// Distance in units in the last place, through zero; NaNs are handled apart.
template <class T> std::uint64_t ulps(T a, T b) {
  auto key = [](T v) {
    Bits<T> u;
    std::memcpy(&u, &v, sizeof u);
    const Bits<T> sign = Bits<T>(1) << (sizeof(T) * 8 - 1);
    return (u & sign) ? static_cast<long double>(-static_cast<long double>(u & ~sign))
                      : static_cast<long double>(u);
  };
  const long double d = key(a) - key(b);
  return static_cast<std::uint64_t>(d < 0 ? -d : d);
}

template <class T> std::vector<T> operands(std::mt19937_64& g, std::size_t n) {
  std::vector<T> v(n);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  for (std::size_t k = 0; k < n; ++k) {
    if (k % 2 == 0) {  // any bit pattern
      Bits<T> b = static_cast<Bits<T>>(g());
      std::memcpy(&v[k], &b, sizeof b);
    } else {  // the magnitudes programs use, either sign
      const T m = static_cast<T>(std::exp2(u(g) * 40 - 20));
      v[k] = (g() & 1) ? -m : m;
    }
  }
  const T inf = std::numeric_limits<T>::infinity(), nan = std::numeric_limits<T>::quiet_NaN();
  const T special[] = {0, -T(0), inf, -inf, nan, 1, -1, 2, T(0.5), T(-0.5), std::numeric_limits<T>::denorm_min(),
                       std::numeric_limits<T>::min(), std::numeric_limits<T>::max(),
                       -std::numeric_limits<T>::max(), T(88.7), T(709.8), T(1e-30), T(3)};
  for (std::size_t k = 0; k < sizeof special / sizeof special[0]; ++k) v[k * 7 % n] = special[k];
  return v;
}

// Runs `loop` over x (and y) in chunks of 4096 elements, as the evaluator does.
template <class T> std::vector<T> run(cpu::Loop loop, std::vector<T>& x, std::vector<T>& y, int arity) {
  std::vector<T> out(x.size(), T(-7));
  for (std::size_t s = 0; s < x.size(); s += 4096) {
    void* reg[3] = {x.data() + s, y.data() + s, out.data() + s};
    cpu::Instr in;
    in.arg[0] = 0;
    if (arity == 2) in.arg[1] = 1;
    in.out = 2;
    cpu::Chunk c{reg, std::min<std::size_t>(4096, x.size() - s), static_cast<std::int64_t>(s)};
    loop(in, c);
  }
  return out;
}

// Mismatches of SLEEF's loop: against the template function's, a NaN, an
// infinity or a zero (with its sign) must be the same; a finite value within
// `tol` ulps of `exact` (the function in long double, rounded once: the C
// library's own float and double functions are up to a few ulps off at
// times, cbrt for one, where SLEEF is not).
template <class T, class Exact> std::string compare(Op op, int arity, std::uint64_t tol, Exact exact) {
  const DType t = sizeof(T) == 4 ? DType::Float32 : DType::Float64;
  const Builtin& b = builtin(op);
  DType r1 = t, r2 = t;
  cpu::Loop vec = cpu::op_loop(b, t, arity, r1), ref = cpu::template_loop(b, t, arity, r2);
  if (vec == ref) return std::string(b.name) + ": no SLEEF loop";
  std::mt19937_64 g(static_cast<std::uint64_t>(op) * 31 + sizeof(T));
  const std::size_t n = 16 * 4096 + 13;
  std::vector<T> x = operands<T>(g, n), y = operands<T>(g, n);
  std::vector<T> got = run(vec, x, y, arity), want = run(ref, x, y, arity);
  for (std::size_t k = 0; k < n; ++k) {
    const T a = got[k], w = want[k];
    bool ok;
    if (std::isnan(w) || std::isnan(a)) ok = std::isnan(w) && std::isnan(a);
    else if (std::isinf(w) || w == 0 || std::isinf(a) || a == 0) ok = std::memcmp(&a, &w, sizeof a) == 0;
    else ok = ulps(a, static_cast<T>(exact(static_cast<long double>(x[k]), static_cast<long double>(y[k])))) <= tol;
    if (!ok) {
      char buf[240];
      std::snprintf(buf, sizeof buf, "%s(%a%s%a): SLEEF %a, template %a, exact %a", std::string(b.name).c_str(),
                    static_cast<double>(x[k]), arity == 2 ? ", " : "", arity == 2 ? static_cast<double>(y[k]) : 0.0,
                    static_cast<double>(a), static_cast<double>(w),
                    static_cast<double>(static_cast<T>(exact(static_cast<long double>(x[k]), static_cast<long double>(y[k])))));
      return buf;
    }
  }
  return "";
}

// The function named by vector_math.def's sleef column, in long double
// (<cmath> has every one of them under the same name).
#define CJ_EXACT(sleef, arity)                                                                     \
  [](auto a, auto b) -> long double { /* generic, so the other arity's call is discarded */        \
    if constexpr (arity == 1) return (void)b, std::sleef(a);                                       \
    else return std::sleef(a, b);                                                                  \
  }

}  // namespace

TEST_CASE("SLEEF's loops match the template functions", "[vector_math]") {
  if (!sleef_in_use()) {
    CUJIT_SKIP("SLEEF is not in use here (" + cpu::cpu_math() + "): nothing to compare; install libsleef3");
  }
  // SLEEF's u10 functions are within 1.0 ulp of the exact value (hypot 0.5),
  // so within 1 of the correctly rounded one; its u35 ones (float32 sin, cos,
  // tanh, log, arctan2) within 3.5, so within 4 (measured: 2.8).
#define VM(Id, arity, sleef, bound, bound32)                                                    \
  CHECK(compare<float>(Op::Id, arity, #bound32[1] == '3' ? 4 : 1, CJ_EXACT(sleef, arity)) == ""); \
  CHECK(compare<double>(Op::Id, arity, 1, CJ_EXACT(sleef, arity)) == "");
#include "cpu/vector_math.def"
}

TEST_CASE("float32 power: correctly rounded, NumPy's special values", "[vector_math]") {
  if (!sleef_in_use()) {
    CUJIT_SKIP("SLEEF is not in use here (" + cpu::cpu_math() + "): the C library's powf is used; install libsleef3");
  }
  DType r = DType::Float32;
  const cpu::Loop loop = cpu::op_loop(builtin(Op::Power), DType::Float32, 2, r);
  std::mt19937_64 g(5);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const std::size_t n = 1 << 18;
  // Exponents: any (the general path), and constant integers and halves
  // (the products path), each over any base; constants past an int's range
  // (the fuzzer's 2^64 once reached an int conversion before the range check).
  std::vector<float> exps = {NAN,   1.5f,  3.0f,  -2.5f, 0.0f, -0.0f,        16.0f,        -16.0f,   7.5f,     0.25f,
                             1.0f,  17.0f, 2.0f,  0.5f,  -1.0f, 0x1p64f, -0x1p64f, 3e38f, INFINITY, -INFINITY};
  for (std::size_t e = 0; e <= exps.size(); ++e) {
    std::vector<float> x(n), y(n);
    for (std::size_t k = 0; k < n; ++k) {
      std::uint32_t bits = static_cast<std::uint32_t>(g());
      std::memcpy(&x[k], &bits, 4);
      if (std::isnan(x[k])) x[k] = NAN;  // a quiet NaN: the C library answers 1 for NaN ** 0 only then
      if (k % 2) x[k] = static_cast<float>(std::exp2(u(g) * 60 - 30));
      y[k] = e < exps.size() ? exps[e] : static_cast<float>((u(g) - 0.5) * 8);
      if (e == 0) {  // any exponent, any bits
        bits = static_cast<std::uint32_t>(g());
        std::memcpy(&y[k], &bits, 4);
        if (std::isnan(y[k])) y[k] = NAN;
      }
    }
    std::vector<float> got = run(loop, x, y, 2);
    std::size_t off_by_one = 0;
    for (std::size_t k = 0; k < n; ++k) {
      float want = static_cast<float>(std::pow(static_cast<double>(x[k]), static_cast<double>(y[k])));
      if (y[k] == 2.0f) want = x[k] * x[k];
      if (y[k] == -1.0f) want = 1.0f / x[k];
      if (y[k] == 0.5f && x[k] > 0) want = std::sqrt(x[k]);
      const float lib = std::pow(x[k], y[k]);
      INFO("x = " << x[k] << " (" << std::hexfloat << x[k] << "), y = " << y[k] << std::defaultfloat);
      if (std::isnan(lib) || std::isnan(got[k])) {
        REQUIRE((std::isnan(lib) && std::isnan(got[k])));
        continue;
      }
      if (std::isinf(lib) || lib == 0) {
        REQUIRE(std::memcmp(&lib, &got[k], 4) == 0);
        continue;
      }
      REQUIRE(ulps(got[k], lib) <= 1);
      REQUIRE(ulps(got[k], want) <= 1);
      off_by_one += got[k] != want;
    }
    // Correctly rounded but for inputs within ~2^-48 of a rounding boundary.
    INFO("exponent case " << e);
    CHECK(off_by_one <= n / 10000);
  }
}

// The float32 power against powl rounded once (64 bits of mantissa, so the
// correctly rounded float but for results within ~2^-63 of a rounding
// boundary): every result is that or its neighbour, and a neighbour only where
// the exact power is within 2^-43 max(1, |y|) of the boundary between them
// (relative; measured: 2^-44.1 on AVX-512, none on AVX2). Edge inputs: bases an ulp or a few from 1 with large
// exponents, results near float's overflow and in its subnormal range. And a
// lane's result does not depend on its neighbours: lanes beside an exponent
// that takes the exact path (2, 0.5, -1) or a base the C library answers get
// the same bits as without them.
TEST_CASE("float32 power: correctly rounded but near a boundary, whatever the neighbours", "[vector_math]") {
  if (!sleef_in_use()) {
    CUJIT_SKIP("SLEEF is not in use here (" + cpu::cpu_math() + "): the C library's powf is used; install libsleef3");
  }
  DType rt = DType::Float32;
  const cpu::Loop loop = cpu::op_loop(builtin(Op::Power), DType::Float32, 2, rt);
  std::mt19937_64 g(11);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const std::size_t n = 1 << 20;
  std::vector<float> x(n), y(n);
  for (std::size_t k = 0; k < n; ++k) {
    switch (k % 6) {
      case 0: x[k] = static_cast<float>(std::exp2(u(g) * 60 - 30)), y[k] = static_cast<float>((u(g) - 0.5) * 8); break;
      case 1: {  // any positive finite base, exponents to +-2
        const std::uint32_t bits = static_cast<std::uint32_t>(g()) % 0x7f800000u;
        std::memcpy(&x[k], &bits, 4);
        y[k] = static_cast<float>((u(g) - 0.5) * 4);
        break;
      }
      case 2: x[k] = 1.0f + static_cast<float>(static_cast<int>(g() % 64) - 32) * 0x1p-24f, y[k] = static_cast<float>((u(g) - 0.5) * 2e7); break;
      case 3: x[k] = static_cast<float>(0.1 + 2 * u(g)), y[k] = static_cast<float>(0.1 + 2 * u(g)); break;  // the benchmark's
      case 4: x[k] = static_cast<float>(1 + u(g)), y[k] = static_cast<float>(127.5 / std::log2(x[k]) + (u(g) - 0.5)); break;
      default: x[k] = static_cast<float>(0.25 + 0.5 * u(g)), y[k] = static_cast<float>((120 + 30 * u(g)) / -std::log2(x[k])); break;
    }
  }
  const std::vector<float> got = run(loop, x, y, 2);
  std::size_t misrounded = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const long double exact = std::pow(static_cast<long double>(x[k]), static_cast<long double>(y[k]));
    const float want = static_cast<float>(exact);
    INFO("x = " << std::hexfloat << x[k] << ", y = " << y[k] << ", got " << got[k] << ", want " << want);
    if (!std::isfinite(want) || want == 0) {
      REQUIRE(std::memcmp(&got[k], &want, 4) == 0);
      continue;
    }
    if (got[k] == want) continue;
    REQUIRE(ulps(got[k], want) == 1);
    // Where the two neighbours meet, taken as the boundary (exact in long double).
    const long double mid = (static_cast<long double>(got[k]) + static_cast<long double>(want)) / 2;
    // The error of t = y log2 x grows with |y|: the bound is relative to max(1, |y|).
    REQUIRE(std::fabs(exact - mid) <= std::fabs(mid) * 0x1p-43L * std::max(1.0L, std::fabs(static_cast<long double>(y[k]))));
    ++misrounded;
  }
  CHECK(misrounded <= n / 10000);  // AVX-512: 62 (the largest 2^-44.1 max(1, |y|) from the boundary); AVX2: 0
  // Neighbours: every 16th lane's exponent 2 (the exact path), every 37th base -1.
  std::vector<float> x2 = x, y2 = y;
  for (std::size_t k = 5; k < n; k += 16) y2[k] = 2.0f;
  for (std::size_t k = 3; k < n; k += 37) x2[k] = -1.0f;
  const std::vector<float> mixed = run(loop, x2, y2, 2);
  for (std::size_t k = 0; k < n; ++k) {
    if (x2[k] != x[k] || y2[k] != y[k]) continue;
    INFO("x = " << std::hexfloat << x[k] << ", y = " << y[k]);
    REQUIRE(std::memcmp(&got[k], &mixed[k], 4) == 0);
  }
}

// The general power's edges, lane by lane among ordinary lanes (an exponent
// that varies, so no chunk takes the constant-exponent path): each result is
// the one the lane gets alone in a vector of ordinary lanes, and the correctly
// rounded power (powl once rounded, within an ulp where the C library answers
// a lane: exponents of 2^32 and more, bases not positive and finite), with the
// C library's zeros, infinities and NaNs. Edges: exponents that are powers of
// two (x**0.5, x**2, x**-1 exact, and 1, 4, 0.25, -2, which leave the
// AVX-512 loop's pipelined path), just below and at 2^32 (its limit), huge,
// infinite, NaN and zero; bases subnormal, an ulp from 1, the largest, zero,
// negative (integer exponents), infinite, NaN; results that overflow to inf,
// underflow to 0, and land in the subnormal range.
TEST_CASE("float32 power: the general loop's edge lanes among ordinary ones", "[vector_math]") {
  if (!sleef_in_use()) {
    CUJIT_SKIP("SLEEF is not in use here (" + cpu::cpu_math() + "): the C library's powf is used; install libsleef3");
  }
  DType rt = DType::Float32;
  const cpu::Loop loop = cpu::op_loop(builtin(Op::Power), DType::Float32, 2, rt);
  const float inf = INFINITY, tiny = std::numeric_limits<float>::denorm_min();
  const float exps[] = {0.5f, 2.0f, -1.0f, 1.0f, 4.0f, 0.25f, -2.0f, 3.0f, -3.0f, 0.0f, -0.0f, 0x1.fffffep31f, -0x1.fffffep31f,
                        0x1p32f, -0x1p32f, 0x1p33f, 3e38f, inf, -inf, NAN, 1e7f, -1e7f, 127.9f, -149.5f, 2.5f, 1e-8f};
  const float bases[] = {0.0f, -0.0f, tiny, 0x1p-140f, 0x1.8p-127f, std::numeric_limits<float>::min(), 1.0f, 0x1.000002p0f,
                         0x1.fffffep-1f, std::numeric_limits<float>::max(), -2.0f, -0.5f, -1.0f, -3.0f, inf, -inf, NAN, 2.0f,
                         0.5f, 10.0f, 0.1f, 1.99f};
  std::mt19937_64 g(23);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const std::size_t n = 4 * 4096 + 5;  // several chunks and a partial vector
  std::vector<float> x(n), y(n);
  std::vector<std::size_t> edge;
  for (std::size_t k = 0; k < n; ++k) {
    x[k] = static_cast<float>(0.1 + 2 * u(g)), y[k] = static_cast<float>(0.1 + 2 * u(g));  // the benchmark's
    if (k % 5 == 3) {  // one edge lane in most vectors, at every position
      const std::size_t e = edge.size();
      x[k] = bases[e % (sizeof bases / sizeof bases[0])];
      y[k] = exps[e / (sizeof bases / sizeof bases[0]) % (sizeof exps / sizeof exps[0])];
      if (e % 3 == 0) x[k] = static_cast<float>(0.1 + 2 * u(g));  // also an edge exponent on an ordinary base
      edge.push_back(k);
    }
  }
  const std::vector<float> got = run(loop, x, y, 2);
  for (std::size_t k : edge) {
    // The lane alone: the same vector position among ordinary lanes.
    std::vector<float> x1(16), y1(16);
    for (std::size_t j = 0; j < 16; ++j) x1[j] = 1.5f, y1[j] = 0.75f;
    x1[k % 16] = x[k], y1[k % 16] = y[k];
    const float alone = run(loop, x1, y1, 2)[k % 16];
    const float lib = std::pow(x[k], y[k]);
    const float want = static_cast<float>(std::pow(static_cast<long double>(x[k]), static_cast<long double>(y[k])));
    INFO("x = " << std::hexfloat << x[k] << ", y = " << y[k] << ", got " << got[k] << ", alone " << alone << ", want "
                << want << ", powf " << lib);
    REQUIRE(std::memcmp(&got[k], &alone, 4) == 0);
    if (std::isnan(lib) || !std::isfinite(lib) || lib == 0 || x[k] == 1.0f || y[k] == 0.0f) {
      REQUIRE(std::memcmp(&got[k], &lib, 4) == 0);  // NumPy's special values, the C library's
      continue;
    }
    if (y[k] == 2.0f) REQUIRE(got[k] == x[k] * x[k]);
    if (y[k] == -1.0f) REQUIRE(got[k] == 1.0f / x[k]);
    if (y[k] == 0.5f) REQUIRE(got[k] == std::sqrt(x[k]));
    REQUIRE(ulps(got[k], want) <= 1);
  }
  // The ordinary lanes beside them: the correctly rounded power, but for
  // inputs within ~2^-44 of a rounding boundary.
  std::size_t misrounded = 0;
  for (std::size_t k = 0; k < n; ++k) {
    if (k % 5 == 3) continue;
    const float want = static_cast<float>(std::pow(static_cast<long double>(x[k]), static_cast<long double>(y[k])));
    INFO("x = " << std::hexfloat << x[k] << ", y = " << y[k] << ", got " << got[k] << ", want " << want);
    REQUIRE(ulps(got[k], want) <= 1);
    misrounded += got[k] != want;
  }
  CHECK(misrounded <= 2);
}

TEST_CASE("float32 tanh: within its bound of the exact value over a sample of every float", "[vector_math]") {
  if (!sleef_in_use()) {
    CUJIT_SKIP("SLEEF is not in use here (" + cpu::cpu_math() + "): the C library's tanhf is used; install libsleef3");
  }
  // AVX-512: vector_math.cpp's own loop, within 0.999 ulp on every float;
  // AVX2: SLEEF's u35 function, within 3.5.
  const bool own = cpu::cpu_math().find("AVX-512") != std::string::npos;
  const double bound = own ? 1.0 : 3.5;
  DType r = DType::Float32;
  const cpu::Loop loop = cpu::op_loop(builtin(Op::Tanh), DType::Float32, 1, r);
  std::vector<float> x, y;
  for (std::uint64_t b = 0; b < (std::uint64_t(1) << 32); b += 1021) {  // both signs, every exponent
    const std::uint32_t bits = static_cast<std::uint32_t>(b);
    float v;
    std::memcpy(&v, &bits, 4);
    x.push_back(v);
  }
  for (float v : {0.0f, -0.0f, 0.8f, -0.8f, 0.79999995f, 0.12499999f, 0.125f, 0.1875f, 7.9999995f, 8.0f, 9.0f, 9.02f, 9.5f, 20.0f, INFINITY, -INFINITY, NAN})
    x.push_back(v);
  y = x;
  const std::vector<float> got = run(loop, x, y, 1);
  double worst = 0;
  for (std::size_t k = 0; k < x.size(); ++k) {
    INFO("tanh(" << std::hexfloat << x[k] << ") = " << got[k] << std::defaultfloat);
    if (std::isnan(x[k])) {
      REQUIRE(std::isnan(got[k]));
      continue;
    }
    const double exact = std::tanh(static_cast<double>(x[k]));
    if (exact == 0) {  // a zero keeps its sign
      REQUIRE(std::memcmp(&got[k], &x[k], 4) == 0);
      continue;
    }
    int e;
    std::frexp(exact, &e);
    const double ulp = std::ldexp(1.0, std::max(e - 24, -149));
    const double err = std::fabs(static_cast<double>(got[k]) - exact) / ulp;
    worst = std::max(worst, err);
    REQUIRE(err <= bound);
  }
  INFO("worst " << worst << " ulp");
  CHECK(worst <= bound);
}

TEST_CASE("float32 tanh: edge lanes among ordinary ones", "[vector_math]") {
  if (!sleef_in_use()) {
    CUJIT_SKIP("SLEEF is not in use here (" + cpu::cpu_math() + "): the C library's tanhf is used; install libsleef3");
  }
  const bool own = cpu::cpu_math().find("AVX-512") != std::string::npos;
  DType rt = DType::Float32;
  const cpu::Loop loop = cpu::op_loop(builtin(Op::Tanh), DType::Float32, 1, rt);
  auto from_bits = [](std::uint32_t b) {
    float v;
    std::memcpy(&v, &b, 4);
    return v;
  };
  const float inf = INFINITY, tiny = std::numeric_limits<float>::denorm_min();
  // Special values, subnormals, saturation, and the ends of the AVX-512
  // loop's first intervals (its index raises |x| below 2^-4 to 0.0546875).
  const float edges[] = {0.0f, -0.0f, tiny, -tiny, 0x1.8p-130f, -0x1.8p-127f, std::numeric_limits<float>::min(),
                         inf, -inf, from_bits(0x7fc00000u), from_bits(0xffc12345u), from_bits(0x7f800001u),
                         from_bits(0xff812345u), 9.01f, -9.02f, 9.5f, 9.500001f, 20.0f, -3e38f, 8.0f, 0x1.fffffep2f,
                         0.0546875f, 0x1.bffffep-5f, 0x1.fffffep-5f, 0.0625f, -0.0625f, 0x1p-12f, 0.125f, 2.0f};
  std::mt19937_64 g(29);
  std::uniform_real_distribution<double> u(0.0, 1.0);
  const std::size_t n = 2 * 4096 + 7;  // two chunks and a partial vector
  std::vector<float> x(n), y(n);
  std::vector<std::size_t> edge;
  for (std::size_t k = 0; k < n; ++k) {
    x[k] = static_cast<float>(u(g) < 0.5 ? 0.1 + 2 * u(g) : -8 * u(g));  // the benchmark's, and both signs
    if (k % 7 == 2) {  // one edge lane in most vectors, at every position
      x[k] = edges[edge.size() % (sizeof edges / sizeof edges[0])];
      edge.push_back(k);
    }
  }
  y = x;
  const std::vector<float> got = run(loop, x, y, 1);
  for (std::size_t k = 0; k < n; ++k) {
    // The lane alone: the same vector position among ordinary lanes.
    std::vector<float> x1(16, 0.75f);
    x1[k % 16] = x[k];
    std::vector<float> y1 = x1;
    const float alone = run(loop, x1, y1, 1)[k % 16];
    INFO("tanh(" << std::hexfloat << x[k] << ") = " << got[k] << ", alone " << alone);
    REQUIRE(std::memcmp(&got[k], &alone, 4) == 0);
    if (std::isnan(x[k])) {
      if (own) REQUIRE(std::memcmp(&got[k], &x[k], 4) == 0);  // x itself: sign, payload, signaling bit
      else REQUIRE(std::isnan(got[k]));
      continue;
    }
    const double exact = std::tanh(static_cast<double>(x[k]));
    if (own && (std::fabs(x[k]) < 0x1p-12f || std::fabs(x[k]) >= 9.01f)) {
      const float want = static_cast<float>(exact);  // x itself (zeros keep their sign), or +-1
      REQUIRE(std::memcmp(&got[k], &want, 4) == 0);
      continue;
    }
    int e;
    std::frexp(exact, &e);
    REQUIRE(std::fabs(static_cast<double>(got[k]) - exact) <= (own ? 1.0 : 3.5) * std::ldexp(1.0, e - 24));
  }
}

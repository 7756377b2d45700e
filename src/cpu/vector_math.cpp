#include "cpu/vector_math.hpp"

#include <dlfcn.h>
#include <immintrin.h>

#include <cstdlib>
#include <cmath>
#include <cstring>
#include <string_view>

#include "core/fail.hpp"

// Only the loops below run AVX2 instructions (the target attribute), and only
// after the CPU said it has them: the rest of this file, like the library, is
// built for any x86-64. The attributed functions call no inline function from
// a header other than the intrinsics, so no AVX2 copy of a shared inline
// function can be merged into code that runs on other CPUs.
#define CJ_AVX2 __attribute__((target("avx2,fma")))
// The same for the AVX-512 loops: 16 float32 (8 float64) lanes, where NumPy's
// own loops on such a CPU are AVX-512 too.
#define CJ_AVX512 __attribute__((target("avx512f,avx2,fma")))
// AVX512DQ too (every AVX-512 CPU but the Xeon Phis): loops that take it
// where the CPU has it, beside an AVX512F one.
#define CJ_AVX512DQ __attribute__((target("avx512f,avx512dq,avx2,fma")))
// GCC 12's AVX-512 intrinsics initialize their "undefined" operand from
// itself, which -Wmaybe-uninitialized reports at every use (GCC bug 105593).
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"

namespace cujit::cpu {

namespace {

enum Slot : int {
#define VM(Id, arity, sleef, bound, bound32) k##Id,
#include "cpu/vector_math.def"
  kSlots
};

struct Sleef {
  void* f32[kSlots] = {};
  void* f64[kSlots] = {};
  bool in_use = false;
  bool wide = false;  // f32/f64 are SLEEF's AVX-512 functions (16 / 8 lanes)
  std::string what;
};

Sleef open_sleef() {
  Sleef s;
  const char* env = std::getenv("CUJIT_CPU_MATH");
  const std::string_view choice = env ? env : "";
  if (choice == "libm") {
    s.what = "the C library (CUJIT_CPU_MATH=libm)";
    return s;
  }
  if (!choice.empty() && choice != "auto" && choice != "avx2")
    fail(ErrorCode::Usage,
         "CUJIT_CPU_MATH is '{}': it must be 'auto' (SLEEF's vector functions when installed), 'avx2' (SLEEF's "
         "AVX2 functions even where the CPU has AVX-512) or 'libm' (the C library's scalar functions); unset it "
         "for 'auto'",
         choice);
  __builtin_cpu_init();
  if (!__builtin_cpu_supports("avx2") || !__builtin_cpu_supports("fma")) {
    s.what = "the C library (this CPU lacks AVX2 or FMA, which SLEEF's loops need)";
    return s;
  }
  // RTLD_LOCAL: SLEEF's symbols stay out of the application's namespace.
  void* lib = dlopen("libsleef.so.3", RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    s.what = "the C library (libsleef.so.3 not found: install the libsleef3 package for faster CPU math)";
    return s;
  }
  // AVX-512 where the CPU (and the kernel: libgcc checks XCR0) has it and
  // this SLEEF has every function; else AVX2.
  bool all = false;
  if (choice != "avx2" && __builtin_cpu_supports("avx512f")) {
    all = true;
#define VM(Id, arity, sleef, bound, bound32)                                              \
  s.f32[k##Id] = dlsym(lib, "Sleef_" #sleef "f16_" #bound32 "avx512f");                   \
  s.f64[k##Id] = dlsym(lib, "Sleef_" #sleef "d8_" #bound "avx512f");                      \
  all = all && s.f32[k##Id] && s.f64[k##Id];
#include "cpu/vector_math.def"
    s.wide = all;
  }
  if (!all) {
    all = true;
#define VM(Id, arity, sleef, bound, bound32)                                              \
  s.f32[k##Id] = dlsym(lib, "Sleef_" #sleef "f8_" #bound32 "avx2");                       \
  s.f64[k##Id] = dlsym(lib, "Sleef_" #sleef "d4_" #bound "avx2");                         \
  all = all && s.f32[k##Id] && s.f64[k##Id];
#include "cpu/vector_math.def"
  }
  if (!all) {
    // Another SLEEF with other names: all or nothing, so that which
    // functions are vectorized does not depend on the installed version.
    dlclose(lib);
    s = Sleef{};
    s.what = "the C library (libsleef.so.3 lacks some of the AVX2 functions cujit uses)";
    return s;
  }
  s.in_use = true;
  s.what = s.wide ? "SLEEF 3 (AVX-512)" : "SLEEF 3 (AVX2)";
  return s;  // the library stays open for the process's life
}

const Sleef& sleef() {
  static const Sleef s = open_sleef();
  return s;
}

// fpow (templates/math.cuh) answers x ** 0.5 (x > 0), x ** 2 and x ** -1
// with one correctly rounded operation, as NumPy does; SLEEF's pow is within
// an ulp of those, not equal, so its lanes take them back. The square root and
// the division run only when a lane needs them: computed for every vector (a
// masked or blended result still occupies the divider), they were a third of
// the general power's time.
CJ_AVX2 inline __m256 pow_exact(__m256 a, __m256 b, __m256 r) {
  const __m256 half = _mm256_and_ps(_mm256_cmp_ps(b, _mm256_set1_ps(0.5f), _CMP_EQ_OQ),
                                    _mm256_cmp_ps(a, _mm256_setzero_ps(), _CMP_GT_OQ));
  if (_mm256_movemask_ps(half)) r = _mm256_blendv_ps(r, _mm256_sqrt_ps(a), half);
  r = _mm256_blendv_ps(r, _mm256_mul_ps(a, a), _mm256_cmp_ps(b, _mm256_set1_ps(2.0f), _CMP_EQ_OQ));
  const __m256 inv = _mm256_cmp_ps(b, _mm256_set1_ps(-1.0f), _CMP_EQ_OQ);
  if (_mm256_movemask_ps(inv)) r = _mm256_blendv_ps(r, _mm256_div_ps(_mm256_set1_ps(1.0f), a), inv);
  return r;
}
CJ_AVX2 inline __m256d pow_exact(__m256d a, __m256d b, __m256d r) {
  const __m256d half = _mm256_and_pd(_mm256_cmp_pd(b, _mm256_set1_pd(0.5), _CMP_EQ_OQ),
                                     _mm256_cmp_pd(a, _mm256_setzero_pd(), _CMP_GT_OQ));
  if (_mm256_movemask_pd(half)) r = _mm256_blendv_pd(r, _mm256_sqrt_pd(a), half);
  r = _mm256_blendv_pd(r, _mm256_mul_pd(a, a), _mm256_cmp_pd(b, _mm256_set1_pd(2.0), _CMP_EQ_OQ));
  const __m256d inv = _mm256_cmp_pd(b, _mm256_set1_pd(-1.0), _CMP_EQ_OQ);
  if (_mm256_movemask_pd(inv)) r = _mm256_blendv_pd(r, _mm256_div_pd(_mm256_set1_pd(1.0), a), inv);
  return r;
}

CJ_AVX512 inline __m512 pow_exact(__m512 a, __m512 b, __m512 r) {
  const __mmask16 half = _mm512_cmp_ps_mask(b, _mm512_set1_ps(0.5f), _CMP_EQ_OQ) &
                         _mm512_cmp_ps_mask(a, _mm512_setzero_ps(), _CMP_GT_OQ);
  if (half) r = _mm512_mask_sqrt_ps(r, half, a);
  r = _mm512_mask_mul_ps(r, _mm512_cmp_ps_mask(b, _mm512_set1_ps(2.0f), _CMP_EQ_OQ), a, a);
  const __mmask16 inv = _mm512_cmp_ps_mask(b, _mm512_set1_ps(-1.0f), _CMP_EQ_OQ);
  if (inv) r = _mm512_mask_div_ps(r, inv, _mm512_set1_ps(1.0f), a);
  return r;
}
CJ_AVX512 inline __m512d pow_exact(__m512d a, __m512d b, __m512d r) {
  const __mmask8 half = _mm512_cmp_pd_mask(b, _mm512_set1_pd(0.5), _CMP_EQ_OQ) &
                        _mm512_cmp_pd_mask(a, _mm512_setzero_pd(), _CMP_GT_OQ);
  if (half) r = _mm512_mask_sqrt_pd(r, half, a);
  r = _mm512_mask_mul_pd(r, _mm512_cmp_pd_mask(b, _mm512_set1_pd(2.0), _CMP_EQ_OQ), a, a);
  const __mmask8 inv = _mm512_cmp_pd_mask(b, _mm512_set1_pd(-1.0), _CMP_EQ_OQ);
  if (inv) r = _mm512_mask_div_pd(r, inv, _mm512_set1_pd(1.0), a);
  return r;
}

// float32 pow, hand-written: SLEEF's powf8_u10 measured no faster than the C
// library's scalar powf here, which is what keeps x**y behind numexpr. In
// double precision, 2^(b log2 a) needs no tables or tricks: log2 a is the
// exponent plus 2/ln2 atanh(s), s = (m-1)/(m+1) for the mantissa m in
// [sqrt(1/2), sqrt(2)) (|s| < 0.172, so the odd series to s^15 is within
// 2^-40 of it), and 2^t is 2^k e^(f ln2), |f| <= 1/2, by Taylor to degree 11.
// The result's relative error before its one rounding to float is near
// 2^-48 (more for exponents of thousands), so it is the correctly rounded
// power but for inputs that close to a rounding boundary: within the C
// library's 1 ulp and NumPy's. Lanes
// outside a > 0 finite, b finite (zeros, negatives, infinities, NaNs) take
// the C library's powf, as the template function does.
CJ_AVX2 inline __m256d pow_pd(__m256d a, __m256d b) {
  const __m256i bits = _mm256_castpd_si256(a);
  // The exponent field (a is a normal double: a converted float) as a double.
  const __m256i ef = _mm256_srli_epi64(bits, 52);
  const __m256d two52 = _mm256_set1_pd(0x1p52);
  __m256d e = _mm256_sub_pd(_mm256_castsi256_pd(_mm256_or_si256(ef, _mm256_castpd_si256(two52))), two52);
  e = _mm256_sub_pd(e, _mm256_set1_pd(1023.0));
  __m256d m = _mm256_castsi256_pd(_mm256_or_si256(_mm256_and_si256(bits, _mm256_set1_epi64x(0x000fffffffffffffLL)),
                                                  _mm256_set1_epi64x(0x3ff0000000000000LL)));
  const __m256d big = _mm256_cmp_pd(m, _mm256_set1_pd(1.4142135623730951), _CMP_GT_OQ);
  m = _mm256_blendv_pd(m, _mm256_mul_pd(m, _mm256_set1_pd(0.5)), big);
  e = _mm256_add_pd(e, _mm256_and_pd(big, _mm256_set1_pd(1.0)));
  const __m256d one = _mm256_set1_pd(1.0);
  const __m256d s = _mm256_div_pd(_mm256_sub_pd(m, one), _mm256_add_pd(m, one));
  const __m256d z = _mm256_mul_pd(s, s);
  // 2 / (ln 2 (2j+1)) for j = 0 .. 7, by Estrin's scheme (a short dependency chain).
  const __m256d z2 = _mm256_mul_pd(z, z), z4 = _mm256_mul_pd(z2, z2);
  const __m256d p01 = _mm256_fmadd_pd(_mm256_set1_pd(0.9617966939259757), z, _mm256_set1_pd(2.8853900817779268)), p23 = _mm256_fmadd_pd(_mm256_set1_pd(0.41219858311113244), z, _mm256_set1_pd(0.5770780163555853));
  const __m256d p45 = _mm256_fmadd_pd(_mm256_set1_pd(0.2623081892525388), z, _mm256_set1_pd(0.3205988979753252)), p67 = _mm256_fmadd_pd(_mm256_set1_pd(0.19235933878519512), z, _mm256_set1_pd(0.2219530832136867));
  const __m256d p = _mm256_fmadd_pd(_mm256_fmadd_pd(p67, z2, p45), z4, _mm256_fmadd_pd(p23, z2, p01));
  // t = b log2 a in two parts: b e is exact (24 by 8 bits), so only the
  // small part b log2 m carries rounding error, and the fraction f = t - k
  // is found without losing the bits of a large t.
  const __m256d th = _mm256_mul_pd(b, e), tl = _mm256_mul_pd(b, _mm256_mul_pd(p, s));
  const __m256d t = _mm256_add_pd(th, tl);
  // Beyond +-200 the float result is inf or 0 either way: 2^+-200 with f = 0
  // keeps 2^k a normal double and the polynomial in range.
  const __m256d bound = _mm256_set1_pd(200.0);
  const __m256d out = _mm256_cmp_pd(_mm256_andnot_pd(_mm256_set1_pd(-0.0), t), bound, _CMP_GT_OQ);
  const __m256d k = _mm256_round_pd(_mm256_min_pd(_mm256_max_pd(t, _mm256_sub_pd(_mm256_setzero_pd(), bound)), bound),
                                    _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
  const __m256d f = _mm256_andnot_pd(out, _mm256_add_pd(_mm256_sub_pd(th, k), tl));
  const __m256d w = _mm256_mul_pd(f, _mm256_set1_pd(0.69314718055994531));
  // 1/j! for j = 0 .. 11, by Estrin's scheme.
  const __m256d w2 = _mm256_mul_pd(w, w), w4 = _mm256_mul_pd(w2, w2), w8 = _mm256_mul_pd(w4, w4);
  const __m256d q01 = _mm256_fmadd_pd(_mm256_set1_pd(1.0), w, _mm256_set1_pd(1.0)), q23 = _mm256_fmadd_pd(_mm256_set1_pd(0.16666666666666666), w, _mm256_set1_pd(0.5)), q45 = _mm256_fmadd_pd(_mm256_set1_pd(0.008333333333333333), w, _mm256_set1_pd(0.041666666666666664));
  const __m256d q67 = _mm256_fmadd_pd(_mm256_set1_pd(0.0001984126984126984), w, _mm256_set1_pd(0.001388888888888889)), q89 = _mm256_fmadd_pd(_mm256_set1_pd(2.7557319223985893e-06), w, _mm256_set1_pd(2.48015873015873e-05)), qab = _mm256_fmadd_pd(_mm256_set1_pd(2.505210838544172e-08), w, _mm256_set1_pd(2.755731922398589e-07));
  const __m256d q03 = _mm256_fmadd_pd(q23, w2, q01), q47 = _mm256_fmadd_pd(q67, w2, q45), q8b = _mm256_fmadd_pd(qab, w2, q89);
  const __m256d q = _mm256_fmadd_pd(q8b, w8, _mm256_fmadd_pd(q47, w4, q03));
  const __m256i k64 = _mm256_cvtepi32_epi64(_mm256_cvtpd_epi32(k));
  const __m256d scale = _mm256_castsi256_pd(_mm256_slli_epi64(_mm256_add_epi64(k64, _mm256_set1_epi64x(1023)), 52));
  return _mm256_mul_pd(q, scale);
}

// x^n in double by squaring, |n| <= 16: at most nine roundings of 2^-53
// before the one to float.
CJ_AVX2 inline __m256d ipow_pd(__m256d x, int n) {
  const __m256d one = _mm256_set1_pd(1.0);
  __m256d r = one, p = x;
  for (unsigned u = static_cast<unsigned>(n < 0 ? -n : n); u; u >>= 1) {
    if (u & 1) r = _mm256_mul_pd(r, p);
    if (u > 1) p = _mm256_mul_pd(p, p);
  }
  return n < 0 ? _mm256_div_pd(one, r) : r;
}

// x ** b0 for a constant b0 = n or n + 1/2 (pow_exponent_fixed), by the
// products in double; false (nothing done) for a half-integer power of a
// vector with a lane that is not positive and finite.
CJ_AVX2 inline bool pow_ps_fixed(__m256 a, float b0, __m256& r) {
  const bool whole = __builtin_truncf(b0) == b0;
  if (!whole) {
    const __m256 plain = _mm256_and_ps(_mm256_cmp_ps(a, _mm256_setzero_ps(), _CMP_GT_OQ),
                                       _mm256_cmp_ps(a, _mm256_set1_ps(__builtin_inff()), _CMP_LT_OQ));
    if (_mm256_movemask_ps(plain) != 0xff) return false;
  }
  const int n = static_cast<int>(__builtin_floorf(b0));
  auto half = [&](__m128 h) CJ_AVX2 {
    const __m256d x = _mm256_cvtps_pd(h);
    __m256d v = ipow_pd(x, n);
    if (!whole) v = _mm256_mul_pd(v, _mm256_sqrt_pd(x));
    return _mm256_cvtpd_ps(v);
  };
  r = _mm256_insertf128_ps(_mm256_castps128_ps256(half(_mm256_castps256_ps128(a))), half(_mm256_extractf128_ps(a, 1)), 1);
  return true;
}

CJ_AVX2 inline __m256 pow_ps_general(__m256 a, __m256 b) {
  const __m128 lo = _mm256_cvtpd_ps(pow_pd(_mm256_cvtps_pd(_mm256_castps256_ps128(a)),
                                           _mm256_cvtps_pd(_mm256_castps256_ps128(b))));
  const __m128 hi = _mm256_cvtpd_ps(pow_pd(_mm256_cvtps_pd(_mm256_extractf128_ps(a, 1)),
                                           _mm256_cvtps_pd(_mm256_extractf128_ps(b, 1))));
  __m256 r = _mm256_insertf128_ps(_mm256_castps128_ps256(lo), hi, 1);
  const __m256 inf = _mm256_set1_ps(__builtin_inff());
  const __m256 plain = _mm256_and_ps(_mm256_and_ps(_mm256_cmp_ps(a, _mm256_setzero_ps(), _CMP_GT_OQ),
                                                   _mm256_cmp_ps(a, inf, _CMP_LT_OQ)),
                                     _mm256_cmp_ps(_mm256_andnot_ps(_mm256_set1_ps(-0.0f), b), inf, _CMP_LT_OQ));
  if (_mm256_movemask_ps(plain) != 0xff) {
    alignas(32) float ra[8], rb[8], rr[8];
    _mm256_store_ps(ra, a);
    _mm256_store_ps(rb, b);
    _mm256_store_ps(rr, r);
    const int m = _mm256_movemask_ps(plain);
    for (int j = 0; j < 8; ++j)
      if (!(m >> j & 1)) rr[j] = ::powf(ra[j], rb[j]);
    r = _mm256_load_ps(rr);
  }
  return r;
}

// A constant exponent that is an integer or half an integer, |b| <= 16 (x**3,
// x**1.5, x**-2.5: what programs write), takes products in double and, for
// the half, one square root: several times faster than the general power, and
// also the correctly rounded result but for inputs within 2^-49 of a rounding
// boundary. An integer power is NumPy's for every x (signs, zeros,
// infinities, NaN; x**0 is 1). A chunk takes that path when all its
// exponents are one such value, found once per chunk.
CJ_AVX2 inline bool pow_exponent_fixed(const float* b, std::size_t n) {
  const float b0 = b[0];
  if (!(__builtin_fabsf(b0) <= 16.0f) || __builtin_truncf(2.0f * b0) != 2.0f * b0) return false;
  const __m256 v0 = _mm256_set1_ps(b0);
  std::size_t k = 0;
  for (; k + 8 <= n; k += 8)
    if (_mm256_movemask_ps(_mm256_cmp_ps(_mm256_loadu_ps(b + k), v0, _CMP_EQ_OQ)) != 0xff) return false;
  for (; k < n; ++k)
    if (!(b[k] == b0)) return false;
  return true;
}

// float32 ** (the Pow and Power rows), in place of SLEEF's powf.
CJ_AVX2 void pow_f32(const Instr& in, const Chunk& c) {
  const float* x = static_cast<const float*>(c.reg[in.arg[0]]);
  const float* z = static_cast<const float*>(c.reg[in.arg[1]]);
  float* y = static_cast<float*>(c.reg[in.out]);
  if (c.n == 0) return;
  const bool fixed = pow_exponent_fixed(z, c.n);
  const float b0 = z[0];
  auto one = [&](__m256 a, __m256 b) CJ_AVX2 {
    __m256 r;
    if (!fixed || !pow_ps_fixed(a, b0, r)) r = pow_ps_general(a, b);
    return pow_exact(a, b, r);
  };
  std::size_t k = 0;
  for (; k + 8 <= c.n; k += 8) _mm256_storeu_ps(y + k, one(_mm256_loadu_ps(x + k), _mm256_loadu_ps(z + k)));
  if (const std::size_t r = c.n - k) {
    alignas(32) float t[8] = {}, u[8] = {};
    for (std::size_t j = 0; j < 8; ++j) t[j] = j < r ? x[k + j] : 1.0f, u[j] = j < r ? z[k + j] : b0;
    _mm256_store_ps(t, one(_mm256_load_ps(t), _mm256_load_ps(u)));
    for (std::size_t j = 0; j < r; ++j) y[k + j] = t[j];
  }
}

// float32 tanh on AVX-512, hand-written in float32 arithmetic: SLEEF's
// tanhf16_u10 measured 4 times slower per element than NumPy's own loop, its
// u35 1.5 times. NumPy's scheme: |x|, clamped to 9.5 (tanh is 1 in float
// from 9.01), picks an interval from its bits and a polynomial in |x| minus
// the interval's centre gives tanh there, each coefficient read from a table
// by one permute: no division and no branch. Zen 4 executes a 512-bit
// operation as two 256-bit halves, so this loop is bound by the count of
// its vector operations, table reads included; hence:
// - 30 intervals, four per octave from 2^-4 (the exponent and the top two
//   mantissa bits) and [0, 2^-4): each table's 32 entries take one
//   two-register permute, and degree 6 is then within 0.015 ulp;
// - every |x| below 2^-4 raised to 0.0546875 (that quarter octave's slot)
//   for the index: the bits need no subtraction and no clamp;
// - each centre a float whose tanh is within 2^-12 ulp of a float: the
//   constant term is one float, not two;
// - the sign put back, and NaN lanes' x kept, by one masked ternary logic.
// 19 operations a vector against 27 for the 15 intervals of degree 7 before
// (the loop over 10^5 floats on one core: 30.4 against 35.1 us; NumPy's
// call 36.5). r = |x| - centre is exact (Sterbenz); tanh(-0) is -0. The tables
// are least-squares fits of the relative error at Chebyshev nodes
// (tools/fit_tanh_f32.py writes them). Checked on every float: within 0.995
// ulp of the exact value, the most on [0, 2^-4), where |x| times its
// polynomial's factor (rounded, near 1) is rounded again
// (tests/unit/test_vector_math.cpp checks a sample).
alignas(64) constexpr float kTanhCen[32] = {2.250109196e+00f, 2.749522924e+00f, 3.249377251e+00f, 3.750085592e+00f, 4.498123646e+00f, 5.500362873e+00f, 6.498973370e+00f, 7.513035297e+00f, 8.664461136e+00f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 7.032413036e-02f, 8.592529595e-02f, 1.015604958e-01f, 1.171915084e-01f, 1.406297088e-01f, 1.718876362e-01f, 2.031320333e-01f, 2.343458831e-01f, 2.812432349e-01f, 3.437515497e-01f, 4.062663913e-01f, 4.687662721e-01f, 5.624765158e-01f, 6.874731779e-01f, 8.123744130e-01f, 9.374738336e-01f, 1.125135303e+00f, 1.374742389e+00f, 1.624985695e+00f, 1.875007033e+00f};
alignas(64) constexpr float kTanhC[7][32] = {
  {9.780308604e-01f, 9.918519855e-01f, 9.969938993e-01f, 9.988946319e-01f, 9.997522831e-01f, 9.999666214e-01f, 9.999954700e-01f, 9.999994040e-01f, 9.999999404e-01f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 7.020843029e-02f, 8.571445197e-02f, 1.012127474e-01f, 1.166579425e-01f, 1.397099197e-01f, 1.702145785e-01f, 2.003834695e-01f, 2.301481366e-01f, 2.740553319e-01f, 3.308224976e-01f, 3.852979243e-01f, 4.372019470e-01f, 5.098125935e-01f, 5.963562727e-01f, 6.708980203e-01f, 7.340594530e-01f, 8.093477488e-01f, 8.797684908e-01f, 9.253441691e-01f, 9.540458918e-01f},
  {4.345563427e-02f, 1.622964256e-02f, 6.003166549e-03f, 2.209515078e-03f, 4.953832831e-04f, 6.675759505e-05f, 9.060061529e-06f, 1.192142804e-06f, 1.191926984e-07f, 0.000000000e+00f, 0.000000000e+00f, 1.000000000e+00f, 9.950707555e-01f, 9.926530123e-01f, 9.897559881e-01f, 9.863909483e-01f, 9.804811478e-01f, 9.710270166e-01f, 9.598464370e-01f, 9.470318556e-01f, 9.248936772e-01f, 8.905564547e-01f, 8.515455127e-01f, 8.088544607e-01f, 7.400911450e-01f, 6.443591714e-01f, 5.498958230e-01f, 4.611567259e-01f, 3.449562192e-01f, 2.260074019e-01f, 1.437381655e-01f, 8.979643881e-02f},
  {-4.250094667e-02f, -1.609739847e-02f, -5.985119380e-03f, -2.207072685e-03f, -4.952530144e-04f, -6.675485929e-05f, -9.059481272e-06f, -1.192600280e-06f, -1.189399796e-07f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, -6.986295432e-02f, -8.508504927e-02f, -1.001756564e-01f, -1.150698289e-01f, -1.369828880e-01f, -1.652827263e-01f, -1.923375875e-01f, -2.179574817e-01f, -2.534720004e-01f, -2.946162224e-01f, -3.280987442e-01f, -3.536327481e-01f, -3.773076832e-01f, -3.842677176e-01f, -3.689240813e-01f, -3.385164440e-01f, -2.791895270e-01f, -1.988341957e-01f, -1.330072731e-01f, -8.566992730e-02f},
  {2.708234079e-02f, 1.055595558e-02f, 3.965848591e-03f, 1.468041330e-03f, 3.296569339e-04f, 4.445220839e-05f, 6.033390491e-06f, 7.939927968e-07f, 7.921079259e-08f, 0.000000000e+00f, 0.000000000e+00f, -3.333329856e-01f, -3.256914318e-01f, -3.225192726e-01f, -3.202178180e-01f, -3.166241348e-01f, -3.078128099e-01f, -2.957962751e-01f, -2.810379565e-01f, -2.657817006e-01f, -2.388397455e-01f, -1.993196011e-01f, -1.574430019e-01f, -1.150195673e-01f, -5.436192453e-02f, 1.439398341e-02f, 6.423082203e-02f, 9.476697445e-02f, 1.109768376e-01f, 9.959300607e-02f, 7.516580075e-02f, 5.180055648e-02f},
  {-1.232076343e-02f, -5.104574375e-03f, -1.959058922e-03f, -7.307790802e-04f, -1.647494937e-04f, -2.222864714e-05f, -3.021291377e-06f, -3.931761512e-07f, -4.070621529e-08f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, 7.831858099e-02f, 7.538728416e-02f, 5.391030759e-02f, 5.017668754e-02f, 8.753944188e-02f, 1.024226323e-01f, 1.237260625e-01f, 1.320100427e-01f, 1.498397887e-01f, 1.645267159e-01f, 1.700696945e-01f, 1.681417376e-01f, 1.534070373e-01f, 1.195711792e-01f, 7.992898673e-02f, 4.326431081e-02f, 3.243179526e-03f, -2.133936062e-02f, -2.521802485e-02f, -2.086301520e-02f},
  {3.976980224e-03f, 1.916864887e-03f, 7.715221727e-04f, 2.925591543e-04f, 6.855817628e-05f, 9.273201613e-06f, 1.259090482e-06f, 1.653013868e-07f, 1.704626484e-08f, 0.000000000e+00f, 0.000000000e+00f, 1.330422163e-01f, -1.268868637e+01f, -1.241917515e+01f, 5.251229286e+00f, 1.476330280e+01f, 4.738807082e-01f, 8.462372422e-01f, -9.908276796e-01f, 8.596244454e-01f, 6.434261054e-02f, -1.700331084e-02f, 1.340841223e-02f, -9.616919793e-03f, -3.968189657e-02f, -6.528023630e-02f, -6.619261205e-02f, -5.210561678e-02f, -3.203580901e-02f, -9.518867359e-03f, 1.376510249e-03f, 4.627889954e-03f},
  {-7.187717129e-04f, -5.454113125e-04f, -2.436134673e-04f, -9.565627261e-05f, -2.252107879e-05f, -3.074760798e-06f, -4.084397744e-07f, -6.421934273e-08f, -4.299525624e-09f, 0.000000000e+00f, 0.000000000e+00f, 0.000000000e+00f, -3.819176025e+02f, -2.284514618e+02f, 1.302713470e+02f, 2.871752930e+02f, 3.603758574e+00f, 8.739377975e+00f, -9.829716682e+00f, 4.963733673e+00f, -4.275254905e-03f, -3.382532299e-01f, -8.789312840e-02f, -3.577822074e-02f, -2.570108511e-02f, -2.122136205e-02f, 1.490954775e-03f, 1.817818545e-02f, 1.858490147e-02f, 1.094315015e-02f, 4.122635815e-03f, 6.126858061e-04f},
};

// a = min(|x|, 9.5) but in NaN lanes, where tanh_ps returns x whatever it is.
CJ_AVX512 inline __m512 tanh_ps(__m512 x, __m512 a) {
  const __m512i i = _mm512_srli_epi32(_mm512_castps_si512(_mm512_max_ps(a, _mm512_set1_ps(0.0546875f))), 21);
  auto tab = [&](const float* t) CJ_AVX512 { return _mm512_permutex2var_ps(_mm512_load_ps(t), i, _mm512_load_ps(t + 16)); };
  const __m512 r = _mm512_sub_ps(a, tab(kTanhCen));
  __m512 p = tab(kTanhC[6]);
  for (int k = 5; k >= 0; --k) p = _mm512_fmadd_ps(p, r, tab(kTanhC[k]));
  // p | (x & sign) where x is a number, x where it is NaN (0xec: b | (a & c)).
  return _mm512_castsi512_ps(_mm512_mask_ternarylogic_epi32(_mm512_castps_si512(x), _mm512_cmp_ps_mask(x, x, _CMP_ORD_Q),
                                                            _mm512_castps_si512(p), _mm512_set1_epi32(INT32_MIN), 0xec));
}

// The loop twice, for the two ways to |x| clamped: abs and min, or with
// AVX512DQ one range operation (the least magnitude, sign cleared; a NaN
// lane gives 9.5 or NaN, put back by tanh_ps), one operation of 19 fewer:
// 0.97 of the time of the loop over 10^5 floats on one core here.
CJ_AVX512 void tanh_f32(const Instr& in, const Chunk& c) {
  const float* x = static_cast<const float*>(c.reg[in.arg[0]]);
  float* y = static_cast<float*>(c.reg[in.out]);
  const std::size_t n = c.n;  // a local: the stores through y could alias c.n, which the loop reloaded each time
  auto one = [&](__m512 v) CJ_AVX512 { return tanh_ps(v, _mm512_min_ps(_mm512_abs_ps(v), _mm512_set1_ps(9.5f))); };
  std::size_t k = 0;
  for (; k + 16 <= n; k += 16) _mm512_storeu_ps(y + k, one(_mm512_loadu_ps(x + k)));
  if (const std::size_t r = n - k) {
    const __mmask16 m = static_cast<__mmask16>((1u << r) - 1);
    _mm512_mask_storeu_ps(y + k, m, one(_mm512_maskz_loadu_ps(m, x + k)));
  }
}
CJ_AVX512DQ void tanh_f32_dq(const Instr& in, const Chunk& c) {
  const float* x = static_cast<const float*>(c.reg[in.arg[0]]);
  float* y = static_cast<float*>(c.reg[in.out]);
  const std::size_t n = c.n;
  auto one = [&](__m512 v) CJ_AVX512DQ { return tanh_ps(v, _mm512_range_ps(v, _mm512_set1_ps(9.5f), 0x0a)); };
  std::size_t k = 0;
  for (; k + 16 <= n; k += 16) _mm512_storeu_ps(y + k, one(_mm512_loadu_ps(x + k)));
  if (const std::size_t r = n - k) {
    const __mmask16 m = static_cast<__mmask16>((1u << r) - 1);
    _mm512_mask_storeu_ps(y + k, m, one(_mm512_maskz_loadu_ps(m, x + k)));
  }
}

// The float32 power on AVX-512: pow_ps_fixed and pow_f32 above with eight
// double lanes, but for the square root of a half-integer power and the
// general power's steps, which take tables that permutes read in one
// instruction (AVX2 has no 16-entry permute): log2 a from 16 centres c of
// a's mantissa range, log2 a = k + log2 c + log2(a/c) with |a/c - 1| < 0.03
// (a degree-6 polynomial within 2^-42; c = 1 near 1, so log2 1 is 0), and
// 2^t from a table of 2^(j/16) and a degree-5 polynomial of |f| <= 1/32
// (within 2^-46; 2^k by scalef), ARM's optimized-routines powf scheme: no
// division and half the operations of the series above (0.96 ns against
// 1.75 an element on one core here). Before its one rounding to float the
// result is within about 2^-44 max(1, |b|) (the error of log2 a, times b:
// measured, tests/unit/test_vector_math.cpp), so it is the correctly rounded
// power but for inputs that close to a rounding boundary; results can differ
// from the AVX2 loop's there.
alignas(64) constexpr double kPowInvC[16] = {
    1.3989071038251366, 1.3403141361256545, 1.2864321608040201, 1.2367149758454106,
    1.1906976744186046, 1.147982062780269,  1.1082251082251082, 1.0711297071129706,
    1.0364372469635628, 1.0,                0.9481481481481482, 0.8951048951048951,
    0.847682119205298,  0.8050314465408805, 0.7664670658682635, 0.7314285714285714};
alignas(64) constexpr double kPowLogC[16] = {  // -log2 of kPowInvC, rounded once
    -0.4843001617159575, -0.4225711719642514,  -0.3633753794563512,  -0.3065130425006747,
    -0.2518071504105397, -0.19910010007969525, -0.14825095858394247, -0.09913319201925132,
    -0.05163276841532236, 0.0,                 0.07681559705083084,  0.1598713367783894,
    0.2384047393250789,  0.3128829552843553,   0.38370429247405213,  0.4512111118323288};
alignas(64) constexpr double kPowExp2[16] = {  // 2^(j/16)
    1.0,                1.0442737824274138, 1.0905077326652577, 1.1387886347566916,
    1.189207115002721,  1.241857812073484,  1.2968395546510096, 1.3542555469368927,
    1.4142135623730951, 1.4768261459394993, 1.5422108254079407, 1.6104903319492543,
    1.681792830507429,  1.7562521603732995, 1.8340080864093424, 1.9152065613971474};
// The bits of 0.69921875: a double's bits minus these, shifted right by 48,
// number its mantissa's 16 ranges (within [0.7, 1.4)) in the low 4 bits, and
// by 52 give its exponent k for that range.
constexpr long long kPowOff = 0x3fe6600000000000LL;

// The power's two halves, each over two vectors of 8 doubles (the halves of
// 16 float lanes), each step written for both. The chain of dependent steps
// from a to a's power is about 90 cycles; the loop below overlaps one block's
// pow_log2_times with the previous block's pow_exp2 (software pipelining),
// which the out-of-order window did not find on its own (Zen 4, 10^5 floats
// on one core: 0.102 ms against 0.113 with one block's halves side by side in
// one chain; four halves in one chain spilled registers). The polynomials go
// by Horner's rule (the coefficients, so the bounds, are those of the Estrin
// form before): once the chains overlap, fewer operations beat shorter chains.

// t = b log2 a for a > 0 finite (float subnormals included: a is a double),
// |b| < 2^32 (pow_plain): |t| < 2^40.
CJ_AVX512 __attribute__((always_inline)) inline void pow_log2_times(const __m512d (&a)[2], const __m512d (&b)[2], __m512d (&t)[2]) {
  const __m512d one = _mm512_set1_pd(1.0), magic = _mm512_set1_pd(0x1.8p52);
  for (int h = 0; h < 2; ++h) {
    const __m512i bits = _mm512_castpd_si512(a[h]);
    const __m512i tmp = _mm512_sub_epi64(bits, _mm512_set1_epi64(kPowOff));
    const __m512i idx = _mm512_srli_epi64(tmp, 48);  // the permutes read its low 4 bits
    const __m512i k = _mm512_srai_epi64(tmp, 52);
    const __m512d z = _mm512_castsi512_pd(_mm512_sub_epi64(bits, _mm512_slli_epi64(k, 52)));
    const __m512d invc = _mm512_permutex2var_pd(_mm512_load_pd(kPowInvC), idx, _mm512_load_pd(kPowInvC + 8));
    const __m512d logc = _mm512_permutex2var_pd(_mm512_load_pd(kPowLogC), idx, _mm512_load_pd(kPowLogC + 8));
    const __m512d r = _mm512_fmsub_pd(z, invc, one);
    // k to double without AVX512DQ
    const __m512d kd = _mm512_sub_pd(_mm512_castsi512_pd(_mm512_add_epi64(k, _mm512_castpd_si512(magic))), magic);
    // log2(1 + r) / r, fitted at Chebyshev nodes of |r| <= 0.0297.
    __m512d p = _mm512_fmadd_pd(_mm512_set1_pd(-0.24072649163000337), r, _mm512_set1_pd(0.2888106320249494));
    p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(-0.3606736384502399));
    p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(0.480898257517179));
    p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(-0.7213475204578484));
    p = _mm512_fmadd_pd(p, r, _mm512_set1_pd(1.4426950408933268));
    t[h] = _mm512_mul_pd(b[h], _mm512_fmadd_pd(p, r, _mm512_add_pd(kd, logc)));
  }
}

// 2^t for |t| < 2^40. t is rounded to 1/16 by adding 1.5 * 2^48 (exact below
// 2^47), whose low bits are then 16 kf: adds, where rounding and a
// multiply-add took the multiply ports the polynomials need. Beyond +-150
// the float is inf or 0 either way, and scalef (2^floor(kf)) saturates there:
// no clamp of t, and no NaN from a product that overflowed.
CJ_AVX512 __attribute__((always_inline)) inline void pow_exp2(const __m512d (&t)[2], __m512d (&out)[2]) {
  const __m512d shift = _mm512_set1_pd(0x1.8p48);
  for (int h = 0; h < 2; ++h) {
    const __m512d jd = _mm512_add_pd(t[h], shift);  // t to 1/16, 16 kf in the low bits (two's complement): j is its low 4
    const __m512d kf = _mm512_sub_pd(jd, shift);
    const __m512d f = _mm512_sub_pd(t[h], kf);
    const __m512d tj = _mm512_permutex2var_pd(_mm512_load_pd(kPowExp2), _mm512_castpd_si512(jd), _mm512_load_pd(kPowExp2 + 8));
    // (2^f - 1) / f, fitted at Chebyshev nodes of |f| <= 1/32.
    __m512d q = _mm512_fmadd_pd(_mm512_set1_pd(0.001333378399622868), f, _mm512_set1_pd(0.009618317139047329));
    q = _mm512_fmadd_pd(q, f, _mm512_set1_pd(0.05550410865691805));
    q = _mm512_fmadd_pd(q, f, _mm512_set1_pd(0.24022650691319494));
    q = _mm512_fmadd_pd(q, f, _mm512_set1_pd(0.6931471805599455));
    out[h] = _mm512_scalef_pd(_mm512_fmadd_pd(q, _mm512_mul_pd(f, tj), tj), kf);
  }
}

CJ_AVX512 __attribute__((always_inline)) inline void pow_pd(const __m512d (&a)[2], const __m512d (&b)[2], __m512d (&out)[2]) {
  __m512d t[2];
  pow_log2_times(a, b, t);
  pow_exp2(t, out);
}

CJ_AVX512 inline __m512d ipow_pd(__m512d x, int n) {
  const __m512d one = _mm512_set1_pd(1.0);
  __m512d r = one, p = x;
  for (unsigned u = static_cast<unsigned>(n < 0 ? -n : n); u; u >>= 1) {
    if (u & 1) r = _mm512_mul_pd(r, p);
    if (u > 1) p = _mm512_mul_pd(p, p);
  }
  return n < 0 ? _mm512_div_pd(one, r) : r;
}

// The two halves of 16 float lanes as doubles, and back.
CJ_AVX512 inline __m512d lo_pd(__m512 v) { return _mm512_cvtps_pd(_mm512_castps512_ps256(v)); }
CJ_AVX512 inline __m512d hi_pd(__m512 v) {
  return _mm512_cvtps_pd(_mm256_castpd_ps(_mm512_extractf64x4_pd(_mm512_castps_pd(v), 1)));
}
CJ_AVX512 inline __m512 join_ps(__m512d lo, __m512d hi) {
  return _mm512_castpd_ps(_mm512_insertf64x4(_mm512_castps_pd(_mm512_castps256_ps512(_mm512_cvtpd_ps(lo))),
                                             _mm256_castps_pd(_mm512_cvtpd_ps(hi)), 1));
}

// x ** (n + 1/2) on AVX-512: x^n times sqrt(x), the square root from
// float32's correctly rounded one s, a 16-lane instruction, and one Newton
// step in double: sqrt(x) = s + (x - s^2) / 2s to within 2^-49 (x - s^2 is
// exact by a fused multiply-add; 1/s by a 14-bit estimate and a Newton step).
// Two 8-lane double square roots cost the divider 24-32 cycles per 16 floats,
// most of `x**1.5 + y`'s time; results can differ from the AVX2 loop's (which
// takes the double square root) for inputs within 2^-48 of a rounding boundary.
CJ_AVX512 inline __m512d sqrt_refined(__m512d x, __m512d s) {
  const __m512d one = _mm512_set1_pd(1.0);
  const __m512d e = _mm512_fnmadd_pd(s, s, x);
  __m512d r = _mm512_rcp14_pd(s);
  r = _mm512_fmadd_pd(r, _mm512_fnmadd_pd(s, r, one), r);
  return _mm512_fmadd_pd(_mm512_mul_pd(e, r), _mm512_set1_pd(0.5), s);
}

// x ** b0 for a constant b0 = n or n + 1/2 (`whole` says which); false
// (nothing done) for a half-integer power of a vector with a lane that is not
// positive and finite.
CJ_AVX512 inline bool pow_ps_fixed(__m512 a, int n, bool whole, __m512& r) {
  if (whole) {
    r = join_ps(ipow_pd(lo_pd(a), n), ipow_pd(hi_pd(a), n));
    return true;
  }
  const __mmask16 plain = _mm512_cmp_ps_mask(a, _mm512_setzero_ps(), _CMP_GT_OQ) &
                          _mm512_cmp_ps_mask(a, _mm512_set1_ps(__builtin_inff()), _CMP_LT_OQ);
  if (plain != 0xffff) return false;
  const __m512 s = _mm512_sqrt_ps(a);
  const __m512d xl = lo_pd(a), xh = hi_pd(a);
  r = join_ps(_mm512_mul_pd(ipow_pd(xl, n), sqrt_refined(xl, lo_pd(s))),
              _mm512_mul_pd(ipow_pd(xh, n), sqrt_refined(xh, hi_pd(s))));
  return true;
}

// The lanes outside pow_plain: the C library's powf, as the
// template function. Out of line, so that the loop around the common case
// keeps its constants in registers.
CJ_AVX512 __attribute__((noinline)) __m512 pow_lanes_libm(__m512 a, __m512 b, __m512 r, __mmask16 plain) {
  alignas(64) float ra[16], rb[16], rr[16];
  _mm512_store_ps(ra, a);
  _mm512_store_ps(rb, b);
  _mm512_store_ps(rr, r);
  for (int j = 0; j < 16; ++j)
    if (!(plain >> j & 1)) rr[j] = ::powf(ra[j], rb[j]);
  return _mm512_load_ps(rr);
}

// The lanes with a > 0 finite and |b| < 2^32 (pow_log2_times's domain). A
// finite |b| >= 2^32 is an even integer whose power is 1, inf or 0 for every
// float a > 0 (|log2 a| >= 2^-24 but for a = 1): the C library's answer.
CJ_AVX512 inline __mmask16 pow_plain(__m512 a, __m512 b) {
  return _mm512_cmp_ps_mask(a, _mm512_setzero_ps(), _CMP_GT_OQ) &
         _mm512_cmp_ps_mask(a, _mm512_set1_ps(__builtin_inff()), _CMP_LT_OQ) &
         _mm512_cmp_ps_mask(_mm512_abs_ps(b), _mm512_set1_ps(0x1p32f), _CMP_LT_OQ);
}

// Whether a vector leaves the pipelined loop for pow_ps_general and
// pow_exact: a lane outside pow_plain, or an exponent with a zero mantissa
// (a power of two, among them 0.5, 2 and -1, which pow_exact answers: one
// test where three compares were, and rare in an exponent that varies).
// Integer compares: a > 0 finite is bits - 1 below 0x7f7fffff unsigned.
CJ_AVX512 inline bool pow_rare(__m512 a, __m512 b) {
  const __m512i ai = _mm512_castps_si512(a), bi = _mm512_castps_si512(b);
  const __mmask16 plain =
      _mm512_cmplt_epu32_mask(_mm512_sub_epi32(ai, _mm512_set1_epi32(1)), _mm512_set1_epi32(0x7f7fffff)) &
      _mm512_cmp_ps_mask(_mm512_abs_ps(b), _mm512_set1_ps(0x1p32f), _CMP_LT_OQ);
  return plain != 0xffff || _mm512_testn_epi32_mask(bi, _mm512_set1_epi32(0x007fffff));
}

CJ_AVX512 __attribute__((always_inline)) inline __m512 pow_ps_general(__m512 a, __m512 b) {
  __m512d rd[2];
  pow_pd({lo_pd(a), hi_pd(a)}, {lo_pd(b), hi_pd(b)}, rd);
  const __m512 r = join_ps(rd[0], rd[1]);
  const __mmask16 plain = pow_plain(a, b);
  return plain == 0xffff ? r : pow_lanes_libm(a, b, r, plain);
}

// The general power over whole vectors from k (advanced past them), inline
// (a call per vector reloaded its ~30 constants) and software pipelined: each
// step computes one block's t = b log2 a and the previous block's 2^t. The
// halves are converted from memory and stored apart, not extracted from and
// inserted into 16-lane registers. A lane's result does not depend on which
// path its vector took (the same pow_log2_times and pow_exp2). Storing a
// block after loading the next is safe in place too: an output that is x or
// z is so element for element, and a block's store writes only its own.
CJ_AVX512 __attribute__((always_inline)) inline void pow_general_loop(const float* x, const float* z, float* y,
                                                                       const std::size_t n, std::size_t& k) {
  __m512d t[2];
  float* pending = nullptr;  // where t's block goes
  for (; k + 16 <= n; k += 16) {  // n in a register: the stores may alias c
    const __m512 a = _mm512_loadu_ps(x + k), b = _mm512_loadu_ps(z + k);
    if (pow_rare(a, b)) {
      _mm512_storeu_ps(y + k, pow_exact(a, b, pow_ps_general(a, b)));
      continue;
    }
    __m512d next[2];
    pow_log2_times({_mm512_cvtps_pd(_mm256_loadu_ps(x + k)), _mm512_cvtps_pd(_mm256_loadu_ps(x + k + 8))},
                   {_mm512_cvtps_pd(_mm256_loadu_ps(z + k)), _mm512_cvtps_pd(_mm256_loadu_ps(z + k + 8))}, next);
    if (pending) {
      __m512d r[2];
      pow_exp2(t, r);
      _mm256_storeu_ps(pending, _mm512_cvtpd_ps(r[0]));
      _mm256_storeu_ps(pending + 8, _mm512_cvtpd_ps(r[1]));
    }
    t[0] = next[0], t[1] = next[1];
    pending = y + k;
  }
  if (pending) {
    __m512d r[2];
    pow_exp2(t, r);
    _mm256_storeu_ps(pending, _mm512_cvtpd_ps(r[0]));
    _mm256_storeu_ps(pending + 8, _mm512_cvtpd_ps(r[1]));
  }
}

CJ_AVX512 void pow_f32_wide(const Instr& in, const Chunk& c) {
  const float* x = static_cast<const float*>(c.reg[in.arg[0]]);
  const float* z = static_cast<const float*>(c.reg[in.arg[1]]);
  float* y = static_cast<float*>(c.reg[in.out]);
  if (c.n == 0) return;
  const bool fixed = pow_exponent_fixed(z, c.n);
  const float b0 = z[0];
  // The exponent's analysis once per chunk, not per vector (the lambda is
  // not inlined: pow_ps_general is large).
  // n only when fixed (|b0| <= 16): a larger exponent does not fit an int.
  const bool whole = __builtin_truncf(b0) == b0;
  const int n = fixed ? static_cast<int>(__builtin_floorf(b0)) : 0;
  auto one = [&](__m512 a, __m512 b) CJ_AVX512 {
    __m512 r;
    if (!fixed || !pow_ps_fixed(a, n, whole, r)) r = pow_ps_general(a, b);
    return pow_exact(a, b, r);
  };
  std::size_t k = 0;
  if (!fixed) pow_general_loop(x, z, y, c.n, k);
  for (; k + 16 <= c.n; k += 16) _mm512_storeu_ps(y + k, one(_mm512_loadu_ps(x + k), _mm512_loadu_ps(z + k)));
  if (const std::size_t r = c.n - k) {
    alignas(64) float t[16] = {}, u[16] = {};
    for (std::size_t j = 0; j < 16; ++j) t[j] = j < r ? x[k + j] : 1.0f, u[j] = j < r ? z[k + j] : b0;
    _mm512_store_ps(t, one(_mm512_load_ps(t), _mm512_load_ps(u)));
    for (std::size_t j = 0; j < r; ++j) y[k + j] = t[j];
  }
}

// The power's exact cases over SLEEF's result r = pow(a, b) (Pow), else r.
template <bool Pow> CJ_AVX512 inline __m512 apply(__m512 r, __m512 a, __m512 b) { return Pow ? pow_exact(a, b, r) : r; }
template <bool Pow> CJ_AVX512 inline __m512d apply(__m512d r, __m512d a, __m512d b) {
  return Pow ? pow_exact(a, b, r) : r;
}
template <bool Pow> CJ_AVX2 inline __m256 apply(__m256 r, __m256 a, __m256 b) { return Pow ? pow_exact(a, b, r) : r; }
template <bool Pow> CJ_AVX2 inline __m256d apply(__m256d r, __m256d a, __m256d b) { return Pow ? pow_exact(a, b, r) : r; }

// Calling SLEEF: its functions take and return vectors in registers (ymm0/zmm0
// and ymm1/zmm1). GCC passes them so from the loops' target attributes. Clang
// (14) does not: the ABI of a vector argument follows the translation unit's
// baseline (no AVX), not the caller's target attribute, so it passed them on
// the stack and SLEEF read whatever the registers held; atan2, hypot and pow
// were wrong in clang builds (CI's sanitizer build found it), and the unary
// functions right only because ymm0 happened to hold the argument. Under clang
// the call goes through a trampoline with a plain pointer ABI that loads the
// registers itself: cj_sleef_call_v256/v512(f, &a, &b, &r) is *r = f(*a, *b)
// (a unary f ignores ymm1/zmm1), called only after the CPU said it has the
// instruction set.
#if defined(__clang__)
extern "C" void cj_sleef_call_v256(void* f, const void* a, const void* b, void* r);
extern "C" void cj_sleef_call_v512(void* f, const void* a, const void* b, void* r);
// One trampoline per vector width, REG its register name (ymm, zmm).
#define CJ_SLEEF_TRAMPOLINE(BITS, REG)                                               \
  "\t.p2align 4\n\t.globl cj_sleef_call_v" #BITS "\n\t.hidden cj_sleef_call_v" #BITS    \
  "\n\t.type cj_sleef_call_v" #BITS ", @function\ncj_sleef_call_v" #BITS ":\n"          \
  "\tpush %rbx\n\tmov %rcx, %rbx\n"                                                   \
  "\tvmovups (%rsi), %" #REG "0\n\tvmovups (%rdx), %" #REG "1\n\tcall *%rdi\n"         \
  "\tvmovups %" #REG "0, (%rbx)\n\tpop %rbx\n\tret\n"                                 \
  "\t.size cj_sleef_call_v" #BITS ", .-cj_sleef_call_v" #BITS "\n"
asm("\t.text\n" CJ_SLEEF_TRAMPOLINE(256, ymm) CJ_SLEEF_TRAMPOLINE(512, zmm));
#define CJ_SLEEF_CALLS(ATTR, V, BITS)                                                  \
  static ATTR V call(void* f, V a) { return call(f, a, a); }                          \
  static ATTR V call(void* f, V a, V b) {                                             \
    V r;                                                                              \
    cj_sleef_call_v##BITS(f, &a, &b, &r);                                             \
    return r;                                                                         \
  }
#else
#define CJ_SLEEF_CALLS(ATTR, V, BITS)                                                  \
  static ATTR V call(void* f, V a) { return reinterpret_cast<V (*)(V)>(f)(a); }       \
  static ATTR V call(void* f, V a, V b) { return reinterpret_cast<V (*)(V, V)>(f)(a, b); }
#endif

// One vector register of each element type: width, loads and stores, and
// where the SLEEF functions of that type are.
struct F32 {
  using T = float;
  using V = __m256;
  static constexpr std::size_t n = 8;
  static CJ_AVX2 V load(const T* p) { return _mm256_loadu_ps(p); }
  static CJ_AVX2 void store(T* p, V v) { _mm256_storeu_ps(p, v); }
  static void* fn(int slot) { return sleef().f32[slot]; }
  CJ_SLEEF_CALLS(CJ_AVX2, V, 256)
};
struct F64 {
  using T = double;
  using V = __m256d;
  static constexpr std::size_t n = 4;
  static CJ_AVX2 V load(const T* p) { return _mm256_loadu_pd(p); }
  static CJ_AVX2 void store(T* p, V v) { _mm256_storeu_pd(p, v); }
  static void* fn(int slot) { return sleef().f64[slot]; }
  CJ_SLEEF_CALLS(CJ_AVX2, V, 256)
};

struct F32x16 {
  using T = float;
  using V = __m512;
  static constexpr std::size_t n = 16;
  static CJ_AVX512 V load(const T* p) { return _mm512_loadu_ps(p); }
  static CJ_AVX512 void store(T* p, V v) { _mm512_storeu_ps(p, v); }
  static void* fn(int slot) { return sleef().f32[slot]; }
  CJ_SLEEF_CALLS(CJ_AVX512, V, 512)
};
struct F64x8 {
  using T = double;
  using V = __m512d;
  static constexpr std::size_t n = 8;
  static CJ_AVX512 V load(const T* p) { return _mm512_loadu_pd(p); }
  static CJ_AVX512 void store(T* p, V v) { _mm512_storeu_pd(p, v); }
  static void* fn(int slot) { return sleef().f64[slot]; }
  CJ_SLEEF_CALLS(CJ_AVX512, V, 512)
};

// The last partial vector goes through a zero-padded copy: lanes are
// independent, so an element's result does not depend on where a chunk ends
// (nor on the thread count).
template <class L, int S> CJ_AVX2 void unary(const Instr& in, const Chunk& c) {
  using T = typename L::T;
  void* const f = L::fn(S);
  const T* x = static_cast<const T*>(c.reg[in.arg[0]]);
  T* y = static_cast<T*>(c.reg[in.out]);
  std::size_t k = 0;
  for (; k + L::n <= c.n; k += L::n) L::store(y + k, L::call(f, L::load(x + k)));
  if (const std::size_t r = c.n - k) {
    T t[L::n] = {};
    for (std::size_t j = 0; j < r; ++j) t[j] = x[k + j];
    L::store(t, L::call(f, L::load(t)));
    for (std::size_t j = 0; j < r; ++j) y[k + j] = t[j];
  }
}
template <class L, int S, bool Pow> CJ_AVX2 void binary(const Instr& in, const Chunk& c) {
  using T = typename L::T;
  void* const f = L::fn(S);
  const T* x = static_cast<const T*>(c.reg[in.arg[0]]);
  const T* z = static_cast<const T*>(c.reg[in.arg[1]]);
  T* y = static_cast<T*>(c.reg[in.out]);
  std::size_t k = 0;
  for (; k + L::n <= c.n; k += L::n) {
    const typename L::V a = L::load(x + k), b = L::load(z + k);
    L::store(y + k, apply<Pow>(L::call(f, a, b), a, b));
  }
  if (const std::size_t r = c.n - k) {
    T t[L::n] = {}, u[L::n] = {};
    for (std::size_t j = 0; j < r; ++j) t[j] = x[k + j], u[j] = z[k + j];
    const typename L::V a = L::load(t), b = L::load(u);
    L::store(t, apply<Pow>(L::call(f, a, b), a, b));
    for (std::size_t j = 0; j < r; ++j) y[k + j] = t[j];
  }
}

// The AVX-512 loops: the same, compiled for 512-bit registers. Written twice
// because a target attribute belongs to a function's definition: a shared
// body without one could not inline L::load/L::store (AVX-512 only), and
// vectors would cross a call in the baseline ABI.
template <class L, int S> CJ_AVX512 void unary_wide(const Instr& in, const Chunk& c) {
  using T = typename L::T;
  void* const f = L::fn(S);
  const T* x = static_cast<const T*>(c.reg[in.arg[0]]);
  T* y = static_cast<T*>(c.reg[in.out]);
  std::size_t k = 0;
  for (; k + L::n <= c.n; k += L::n) L::store(y + k, L::call(f, L::load(x + k)));
  if (const std::size_t r = c.n - k) {
    T t[L::n] = {};
    for (std::size_t j = 0; j < r; ++j) t[j] = x[k + j];
    L::store(t, L::call(f, L::load(t)));
    for (std::size_t j = 0; j < r; ++j) y[k + j] = t[j];
  }
}
template <class L, int S, bool Pow> CJ_AVX512 void binary_wide(const Instr& in, const Chunk& c) {
  using T = typename L::T;
  void* const f = L::fn(S);
  const T* x = static_cast<const T*>(c.reg[in.arg[0]]);
  const T* z = static_cast<const T*>(c.reg[in.arg[1]]);
  T* y = static_cast<T*>(c.reg[in.out]);
  std::size_t k = 0;
  for (; k + L::n <= c.n; k += L::n) {
    const typename L::V a = L::load(x + k), b = L::load(z + k);
    L::store(y + k, apply<Pow>(L::call(f, a, b), a, b));
  }
  if (const std::size_t r = c.n - k) {
    T t[L::n] = {}, u[L::n] = {};
    for (std::size_t j = 0; j < r; ++j) t[j] = x[k + j], u[j] = z[k + j];
    const typename L::V a = L::load(t), b = L::load(u);
    L::store(t, apply<Pow>(L::call(f, a, b), a, b));
    for (std::size_t j = 0; j < r; ++j) y[k + j] = t[j];
  }
}

template <int S, int Arity, bool Pow> Loop loop_of(DType t) {
  if constexpr (Pow) {
    if (t == DType::Float32) return sleef().wide ? &pow_f32_wide : &pow_f32;
  }
  const bool f32 = t == DType::Float32;
  if (sleef().wide) {
    if constexpr (S == kTanh) {
      if (f32) return __builtin_cpu_supports("avx512dq") ? &tanh_f32_dq : &tanh_f32;
    }
    if constexpr (Arity == 1) return f32 ? &unary_wide<F32x16, S> : &unary_wide<F64x8, S>;
    else return f32 ? &binary_wide<F32x16, S, Pow> : &binary_wide<F64x8, S, Pow>;
  }
  if constexpr (Arity == 1) return f32 ? &unary<F32, S> : &unary<F64, S>;
  else return f32 ? &binary<F32, S, Pow> : &binary<F64, S, Pow>;
}

}  // namespace

Loop vector_loop(Op id, DType t) {
  if (t != DType::Float32 && t != DType::Float64) return nullptr;
  const Sleef& s = sleef();
  if (!s.in_use) return nullptr;
  switch (id) {
#define VM(Id, arity, sleef, bound, bound32) \
  case Op::Id: return loop_of<k##Id, arity, Op::Id == Op::Pow || Op::Id == Op::Power>(t);
#include "cpu/vector_math.def"
    default: return nullptr;
  }
}

std::string cpu_math() { return sleef().what; }

}  // namespace cujit::cpu

// ---- complex_math.cuh: complex elementary functions ----
// exp2, expm1, log2, log10, log1p and power use NumPy's own formulas
// (umath/funcs.inc.src, npy_math_complex.c); sqrt and log follow npy_csqrt and
// npy_clog; the inverse functions use Kahan's formulas ("Branch cuts for
// complex elementary functions", 1987) with C99 Annex G's special values.
namespace cj {

template <class P> struct cconst;
template <> struct cconst<float> {
  static __host__ __device__ __forceinline__ float ln2() { return 0.693147180559945309f; }
  static __host__ __device__ __forceinline__ float log2e() { return 1.44269504088896341f; }
  static __host__ __device__ __forceinline__ float log10e() { return 0.434294481903251828f; }
  static __host__ __device__ __forceinline__ float pi() { return 3.14159265358979324f; }
  static __host__ __device__ __forceinline__ float exp_ovf() { return 88.7228394f; }       // log(FLT_MAX)
  // glibc's t = (int)((FLT_MAX_EXP - 1) * ln 2) and its half, integers as there
  static __host__ __device__ __forceinline__ float exp_t() { return 88.0f; }
  static __host__ __device__ __forceinline__ float tanh_t() { return 44.0f; }
  static __host__ __device__ __forceinline__ float min_normal() { return 1.17549435e-38f; }
  static __host__ __device__ __forceinline__ float max_finite() { return 3.40282347e38f; }
  static __host__ __device__ __forceinline__ float tiny_up2() { return 16777216.0f; }           // 2^24
  static __host__ __device__ __forceinline__ float tiny_down() { return 2.44140625e-4f; }       // 2^-12
  static __host__ __device__ __forceinline__ float p() { return 24.0f; }                        // FLT_MANT_DIG
  static __host__ __device__ __forceinline__ float two_p() { return 16777216.0f; }              // 2^p
  static __host__ __device__ __forceinline__ float sqrt_big() { return 1.64e38f; }         // npy_csqrtf's THRESH, about
  static __host__ __device__ __forceinline__ float recip_eps() { return 8388608.0f; }      // 1/FLT_EPSILON
  static __host__ __device__ __forceinline__ float eps() { return 1.1920929e-7f; }
};
template <> struct cconst<double> {
  static __host__ __device__ __forceinline__ double ln2() { return 0.693147180559945309; }
  static __host__ __device__ __forceinline__ double log2e() { return 1.44269504088896341; }
  static __host__ __device__ __forceinline__ double log10e() { return 0.434294481903251828; }
  static __host__ __device__ __forceinline__ double pi() { return 3.14159265358979324; }
  static __host__ __device__ __forceinline__ double exp_ovf() { return 709.782712893384; }
  static __host__ __device__ __forceinline__ double exp_t() { return 709.0; }
  static __host__ __device__ __forceinline__ double tanh_t() { return 354.0; }
  static __host__ __device__ __forceinline__ double min_normal() { return 2.2250738585072014e-308; }
  static __host__ __device__ __forceinline__ double max_finite() { return 1.7976931348623157e308; }
  static __host__ __device__ __forceinline__ double tiny_up2() { return 18014398509481984.0; }  // 2^54
  static __host__ __device__ __forceinline__ double tiny_down() { return 7.450580596923828125e-9; }  // 2^-27
  static __host__ __device__ __forceinline__ double p() { return 53.0; }                        // DBL_MANT_DIG
  static __host__ __device__ __forceinline__ double two_p() { return 9007199254740992.0; }       // 2^p
  static __host__ __device__ __forceinline__ double sqrt_big() { return 7.446288774449766e307; }
  static __host__ __device__ __forceinline__ double recip_eps() { return 4503599627370496.0; }
  static __host__ __device__ __forceinline__ double eps() { return 2.220446049250313e-16; }
};

// ---- exp and log ----
// sin y and cos y as glibc's complex functions take them: below the smallest
// normal, (y, 1), so a tiny nonzero y keeps its sign in a product with inf.
template <class P> __host__ __device__ __forceinline__ void sincos_(P y, P& s, P& c) {
  if (::fabs(y) > cconst<P>::min_normal()) {
    s = ::sin(y);
    c = ::cos(y);
  } else {
    s = y;
    c = P(1);
  }
}

// Special values as glibc's cexp (NumPy calls it): an infinite real part gives
// 0 or inf times the signs of cos y and sin y, never 0 * inf.
template <class P> __host__ __device__ __forceinline__ complex<P> exp(complex<P> z) {
  P x = z.re, y = z.im;
  if (y == P(0)) return cpack(::exp(x), y);
  if (isinf_(x)) {
    if (!isfinite_(y)) return signbit_(x) ? cpack(P(0), ::copysign(P(0), y)) : cpack(x, y - y);
    P v = signbit_(x) ? P(0) : x, s, c;
    sincos_(y, s, c);
    return cpack(::copysign(v, c), ::copysign(v, s));
  }
  P c = ::cos(y), s = ::sin(y);
  if (x > cconst<P>::exp_ovf()) {
    // exp(x) alone overflows where exp(x) * cos(y) may not: scale in halves.
    P h = ::exp(x * P(0.5));
    return cpack(mul(mul(h, c), h), mul(mul(h, s), h));
  }
  P e = ::exp(x);
  return cpack(mul(e, c), mul(e, s));
}

template <class P> __host__ __device__ __forceinline__ complex<P> log(complex<P> z) {
  P ax = ::fabs(z.re), ay = ::fabs(z.im), rr;
  if (ax == P(0) && ay == P(0)) return cpack(P(-1) / ax, ::atan2(z.im, z.re));  // -inf, with the sign of the zeros' angle
  P am = ax > ay ? ax : ay, an = ax > ay ? ay : ax;
  P h = ::hypot(ax, ay);
  if (!isfinite_(h) && isfinite_(am)) {
    rr = ::log(::hypot(ax * P(0.5), ay * P(0.5))) + cconst<P>::ln2();
  } else if (am < cconst<P>::min_normal()) {
    // Subnormal parts: |z| would lose their bits; scaled by 2^p first, as glibc's clog.
    rr = ::log(::hypot(ax * cconst<P>::two_p(), ay * cconst<P>::two_p())) - mul(cconst<P>::p(), cconst<P>::ln2());
  } else if (P(0.71) <= h && h <= P(1.73)) {
    // Near |z| == 1, log(h) loses the bits that log1p keeps.
    rr = ::log1p(mul(am - P(1), am + P(1)) + mul(an, an)) * P(0.5);
  } else {
    rr = ::log(h);
  }
  return cpack(rr, ::atan2(z.im, z.re));
}

template <class P> __host__ __device__ __forceinline__ complex<P> exp2(complex<P> z) {
  return exp(cpack(mul(z.re, cconst<P>::ln2()), mul(z.im, cconst<P>::ln2())));
}
template <class P> __host__ __device__ __forceinline__ complex<P> expm1(complex<P> z) {
  P a = ::sin(z.im / P(2));
  return cpack(mul(::expm1(z.re), ::cos(z.im)) - mul(P(2) * a, a), mul(::exp(z.re), ::sin(z.im)));
}
template <class P> __host__ __device__ __forceinline__ complex<P> log2(complex<P> z) {
  complex<P> r = log(z);
  return cpack(mul(r.re, cconst<P>::log2e()), mul(r.im, cconst<P>::log2e()));
}
template <class P> __host__ __device__ __forceinline__ complex<P> log10(complex<P> z) {
  complex<P> r = log(z);
  return cpack(mul(r.re, cconst<P>::log10e()), mul(r.im, cconst<P>::log10e()));
}
template <class P> __host__ __device__ __forceinline__ complex<P> log1p(complex<P> z) {
  P l = ::hypot(z.re + P(1), z.im);
  return cpack(::log(l), ::atan2(z.im, z.re + P(1)));
}

// ---- sqrt (Algorithm 312, CACM 10, 1967, as npy_csqrt) ----
template <class P> __host__ __device__ __forceinline__ complex<P> sqrt(complex<P> z) {
  P a = z.re, b = z.im;
  if (a == P(0) && b == P(0)) return cpack(P(0), b);
  if (isinf_(b)) return cpack(inf<P>(), b);
  if (isnan_(a)) return cpack(a, qnan<P>());
  if (isinf_(a)) {
    if (signbit_(a)) return cpack(::fabs(b - b), ::copysign(a, b));
    return cpack(a, ::copysign(b - b, b));
  }
  bool scale = ::fabs(a) >= cconst<P>::sqrt_big() || ::fabs(b) >= cconst<P>::sqrt_big();
  if (scale) {
    a *= P(0.25);
    b *= P(0.25);
  }
  // Both parts subnormal or nearly: (a + |z|) / 2 would underflow (to 0, and
  // b / 2t to inf), so scaled up by an even power of 2 first, as glibc's csqrt.
  bool tiny = ::fabs(a) < P(2) * cconst<P>::min_normal() && ::fabs(b) < P(2) * cconst<P>::min_normal();
  if (tiny) {
    a *= cconst<P>::tiny_up2();
    b *= cconst<P>::tiny_up2();
  }
  complex<P> r;
  if (a >= P(0)) {
    P t = ::sqrt((a + ::hypot(a, b)) * P(0.5));
    r = cpack(t, b / (P(2) * t));
  } else {
    P t = ::sqrt((-a + ::hypot(a, b)) * P(0.5));
    r = cpack(::fabs(b) / (P(2) * t), ::copysign(t, b));
  }
  if (scale) r = cpack(r.re * P(2), r.im * P(2));
  if (tiny) r = cpack(r.re * cconst<P>::tiny_down(), r.im * cconst<P>::tiny_down());
  return r;
}

// ---- power (npy_cpow: exact small integer powers by repeated squaring) ----
// exp(b log a): its relative error is that of b log a, about
// |b| (|log|a|| + pi) ulps of the parts: ill-conditioned for a large exponent
// or base, on any machine (docs/language.md, Accuracy).
// The product b * log a is C's (glibc's cpow is cexp(b * clog(a))): C99 Annex
// G's, which recovers infinities where the textbook formula gives NaN + NaN j.
template <class P> __host__ __device__ __forceinline__ complex<P> mul_annex_g(complex<P> z, complex<P> w) {
  P a = z.re, b = z.im, c = w.re, d = w.im;
  P ac = mul(a, c), bd = mul(b, d), ad = mul(a, d), bc = mul(b, c);
  P x = ac - bd, y = ad + bc;
  if (isnan_(x) && isnan_(y)) {
    bool again = false;
    if (isinf_(a) || isinf_(b)) {
      a = ::copysign(isinf_(a) ? P(1) : P(0), a);
      b = ::copysign(isinf_(b) ? P(1) : P(0), b);
      if (isnan_(c)) c = ::copysign(P(0), c);
      if (isnan_(d)) d = ::copysign(P(0), d);
      again = true;
    }
    if (isinf_(c) || isinf_(d)) {
      c = ::copysign(isinf_(c) ? P(1) : P(0), c);
      d = ::copysign(isinf_(d) ? P(1) : P(0), d);
      if (isnan_(a)) a = ::copysign(P(0), a);
      if (isnan_(b)) b = ::copysign(P(0), b);
      again = true;
    }
    if (!again && (isinf_(ac) || isinf_(bd) || isinf_(ad) || isinf_(bc))) {
      if (isnan_(a)) a = ::copysign(P(0), a);
      if (isnan_(b)) b = ::copysign(P(0), b);
      if (isnan_(c)) c = ::copysign(P(0), c);
      if (isnan_(d)) d = ::copysign(P(0), d);
      again = true;
    }
    if (again) {
      x = inf<P>() * (mul(a, c) - mul(b, d));
      y = inf<P>() * (mul(a, d) + mul(b, c));
    }
  }
  return cpack(x, y);
}
template <class P> __host__ __device__ __forceinline__ complex<P> pow_exp_log(complex<P> a, complex<P> b) {
  return exp(mul_annex_g(b, log(a)));
}
#if !__USE_FAST_MATH__
// complex64: glibc's cpowf rounds log a and the product to float32, and
// those two roundings, amplified by exp, are most of NumPy's error (and decide
// its infinities and NaNs): they are kept, with log and exp computed in
// complex128 and rounded once, so that only the GPU's own error drops out.
__host__ __device__ __forceinline__ c64 pow_exp_log(c64 a, c64 b) {
  return to_c64(exp(to_c128(mul_annex_g(b, to_c64(log(to_c128(a)))))));
}
#endif
template <class P> __host__ __device__ __forceinline__ complex<P> pow(complex<P> a, complex<P> b) {
  if (b.re == P(0) && b.im == P(0)) return cpack(P(1), P(0));
  // NumPy 2.4: 0 ** b is 0 for Re b > 0 (whatever Im b), else nan + nan j.
  if (a.re == P(0) && a.im == P(0)) return b.re > P(0) ? cpack(P(0), P(0)) : cpack(qnan<P>(), qnan<P>());
  if (b.im == P(0) && b.re == ::trunc(b.re) && ::fabs(b.re) < P(100)) {
    int n = (int)b.re;
    if (n == 1) return a;
    if (n == 2) return square(a);  // NumPy's square loop, fused as its `*`
    if (n == 3) return mul_textbook(a, mul_textbook(a, a));
    complex<P> acc = cpack(P(1), P(0)), p = a;
    int m = n < 0 ? -n : n;
    for (int mask = 1;; mask <<= 1) {
      if (m & mask) acc = mul_textbook(acc, p);
      if (m < (mask << 1)) break;
      p = mul_textbook(p, p);
    }
    if (b.re < P(0)) acc = div(cpack(P(1), P(0)), acc);
    return acc;
  }
  return pow_exp_log(a, b);
}

// ---- hyperbolic and circular functions (glibc's algorithms and special values, which NumPy uses on Linux) ----
// e^ax / 2 * (c, s) for ax beyond exp's range, where the product may still be
// finite: scaled by e^t in steps, as glibc's csinh/ccosh. Beyond 3t the largest
// finite value stands in for e^ax, so that a zero c or s stays zero.
template <class P> __host__ __device__ __forceinline__ complex<P> half_exp_times(P ax, P c, P s) {
  const P t = cconst<P>::exp_t(), et = ::exp(t);
  P rx = ax - t;
  c = mul(c, et * P(0.5));
  s = mul(s, et * P(0.5));
  if (rx > t) {
    rx -= t;
    c = mul(c, et);
    s = mul(s, et);
  }
  if (rx > t) return cpack(mul(cconst<P>::max_finite(), c), mul(cconst<P>::max_finite(), s));
  P ev = ::exp(rx);
  return cpack(mul(ev, c), mul(ev, s));
}
template <class P> __host__ __device__ __forceinline__ complex<P> sinh(complex<P> z) {
  P x = z.re, y = z.im, s, c;
  if (isfinite_(x)) {
    if (!isfinite_(y)) return x == P(0) ? cpack(x, y - y) : cpack(qnan<P>(), qnan<P>());
    sincos_(y, s, c);
    P ax = ::fabs(x);
    if (signbit_(x)) c = -c;
    if (ax > cconst<P>::exp_t()) return half_exp_times(ax, c, s);
    return cpack(mul(::sinh(ax), c), mul(::cosh(ax), s));
  }
  if (isinf_(x)) {
    if (y == P(0)) return z;
    if (!isfinite_(y)) return cpack(inf<P>(), y - y);  // +inf whatever x's sign, as glibc
    sincos_(y, s, c);
    P re = ::copysign(inf<P>(), c);
    return cpack(signbit_(x) ? -re : re, ::copysign(inf<P>(), s));
  }
  return cpack(qnan<P>(), y == P(0) ? y : qnan<P>());
}
template <class P> __host__ __device__ __forceinline__ complex<P> cosh(complex<P> z) {
  P x = z.re, y = z.im, s, c;
  if (isfinite_(x)) {
    if (!isfinite_(y)) return cpack(y - y, x == P(0) ? P(0) : qnan<P>());
    sincos_(y, s, c);
    P ax = ::fabs(x);
    if (ax > cconst<P>::exp_t()) return half_exp_times(ax, c, signbit_(x) ? -s : s);
    return cpack(mul(::cosh(x), c), mul(::sinh(x), s));
  }
  if (isinf_(x)) {
    P sx = ::copysign(P(1), x);
    if (y == P(0)) return cpack(inf<P>(), y * sx);
    if (!isfinite_(y)) return cpack(inf<P>(), y - y);
    sincos_(y, s, c);
    return cpack(::copysign(inf<P>(), c), ::copysign(inf<P>(), s) * sx);
  }
  return cpack(qnan<P>(), y == P(0) ? y : qnan<P>());
}
// tanh z = (sinh x cosh x + i sin y cos y) / (sinh^2 x + cos^2 y).
template <class P> __host__ __device__ __forceinline__ complex<P> tanh(complex<P> z) {
  P x = z.re, y = z.im, sy, cy;
  if (!isfinite_(x) || !isfinite_(y)) {
    if (isinf_(x)) {
      P im = ::copysign(P(0), y);
      if (isfinite_(y) && ::fabs(y) > P(1)) im = ::copysign(P(0), mul(::sin(y), ::cos(y)));
      return cpack(::copysign(P(1), x), im);
    }
    if (y == P(0)) return z;
    return cpack(x == P(0) ? x : qnan<P>(), qnan<P>());
  }
  sincos_(y, sy, cy);
  const P t = cconst<P>::tanh_t();
  if (::fabs(x) > t) {
    // sinh^2 x overflows: the imaginary part is 4 sin y cos y e^(-2|x|), in two steps.
    P e2t = ::exp(P(2) * t), ax = ::fabs(x) - t;
    P im = mul(mul(P(4), sy), cy) / e2t;
    im = ax > t ? im / e2t : im / ::exp(P(2) * ax);
    return cpack(::copysign(P(1), x), im);
  }
  P sh = x, ch = P(1);
  if (::fabs(x) > cconst<P>::min_normal()) {
    sh = ::sinh(x);
    ch = ::cosh(x);
  }
  P den = ::fabs(sh) > mul(::fabs(cy), cconst<P>::eps()) ? mul(sh, sh) + mul(cy, cy) : mul(cy, cy);
  return cpack(mul(sh, ch) / den, mul(sy, cy) / den);
}
// sin z = -i sinh(iz), cos z = cosh(iz), tan z = -i tanh(iz); glibc's csin
// differs from the first only for an infinite imaginary part with an infinite
// or NaN real part (+inf, where the rotation gives -inf for y = +inf).
template <class P> __host__ __device__ __forceinline__ complex<P> sin(complex<P> z) {
  if (isinf_(z.im) && !isfinite_(z.re)) return cpack(z.re - z.re, inf<P>());
  complex<P> w = sinh(cpack(-z.im, z.re));
  return cpack(w.im, -w.re);
}
template <class P> __host__ __device__ __forceinline__ complex<P> cos(complex<P> z) { return cosh(cpack(-z.im, z.re)); }
template <class P> __host__ __device__ __forceinline__ complex<P> tan(complex<P> z) {
  complex<P> w = tanh(cpack(-z.im, z.re));
  return cpack(w.im, -w.re);
}

// ---- inverse functions ----
// asinh on |x| + i|y| (the result takes the signs back: asinh is odd and
// commutes with conj).
template <class P> __host__ __device__ __forceinline__ complex<P> asinh_q1(P x, P y) {
  const P pi = cconst<P>::pi();
  if (isnan_(x) || isnan_(y)) {
    if (isinf_(x)) return cpack(x, y);
    if (isinf_(y)) return cpack(y, x);
    if (y == P(0)) return cpack(x, y);
    return cpack(qnan<P>(), qnan<P>());
  }
  if (isinf_(x)) return cpack(x, isinf_(y) ? pi * P(0.25) : P(0));
  if (isinf_(y)) return cpack(y, pi * P(0.5));
  if (x >= cconst<P>::recip_eps() || y >= cconst<P>::recip_eps()) {
    // Kahan's products overflow out there, where asinh z = log 2z to the last
    // bit: glibc's threshold and formula.
    complex<P> w = log(cpack(x, y));
    return cpack(w.re + cconst<P>::ln2(), w.im);
  }
  // asinh(z) = -i asin(iz); asin by Kahan: atan2(x, Re(s1 s2)) + i asinh(Im(conj(s1) s2)),
  // s1 = sqrt(1 - w), s2 = sqrt(1 + w), with w = iz = -y + ix.
  complex<P> s1 = sqrt(cpack(P(1) + y, -x)), s2 = sqrt(cpack(P(1) - y, x));
  P are = ::atan2(-y, mul(s1.re, s2.re) - mul(s1.im, s2.im));
  P aim = ::asinh(mul(s1.re, s2.im) - mul(s1.im, s2.re));
  return cpack(aim, -are);
}
template <class P> __host__ __device__ __forceinline__ complex<P> asinh(complex<P> z) {
  complex<P> w = asinh_q1(::fabs(z.re), ::fabs(z.im));
  return cpack(::copysign(w.re, z.re), ::copysign(w.im, z.im));
}
template <class P> __host__ __device__ __forceinline__ complex<P> asin(complex<P> z) {
  complex<P> w = asinh(cpack(z.im, z.re));  // asin(z) = swap(asinh(swap(z)))
  return cpack(w.im, w.re);
}
template <class P> __host__ __device__ __forceinline__ complex<P> acos(complex<P> z) {
  const P pi = cconst<P>::pi();
  P x = z.re, y = z.im;
  if (isnan_(x) || isnan_(y)) {
    // glibc's pi/2 - casin(z): the infinity takes the opposite of y's sign, a NaN's too.
    if (isinf_(x) || isinf_(y)) return cpack(qnan<P>(), -::copysign(inf<P>(), y));
    if (x == P(0)) return cpack(pi * P(0.5), -y);
    return cpack(qnan<P>(), qnan<P>());
  }
  if (isinf_(x) || isinf_(y)) {
    P re = isinf_(x) ? (isinf_(y) ? (x < P(0) ? pi * P(0.75) : pi * P(0.25)) : (x < P(0) ? pi : P(0))) : pi * P(0.5);
    return cpack(re, signbit_(y) ? inf<P>() : -inf<P>());
  }
  if (::fabs(x) >= cconst<P>::recip_eps() || ::fabs(y) >= cconst<P>::recip_eps()) {
    // Kahan's products overflow out there, where acosh z = log 2z to the last
    // bit, and acos z = (|Im|, -+Re) of it; arg z keeps a tiny real part exact.
    complex<P> w = log(z);
    return cpack(::fabs(w.im), -::copysign(w.re + cconst<P>::ln2(), y));
  }
  complex<P> s1 = sqrt(cpack(P(1) - x, -y)), s2 = sqrt(cpack(P(1) + x, y));
  return cpack(P(2) * ::atan2(s1.re, s2.re), ::asinh(mul(s2.re, s1.im) - mul(s2.im, s1.re)));
}
template <class P> __host__ __device__ __forceinline__ complex<P> acosh(complex<P> z) {
  const P pi = cconst<P>::pi();
  P x = z.re, y = z.im;
  if (!isfinite_(x) || !isfinite_(y)) {  // glibc's cacosh
    if (isinf_(y)) {
      P im = isinf_(x) ? (signbit_(x) ? pi * P(0.75) : pi * P(0.25)) : pi * P(0.5);
      return cpack(inf<P>(), isnan_(x) ? x : ::copysign(im, y));
    }
    if (isinf_(x)) return cpack(inf<P>(), isnan_(y) ? y : ::copysign(signbit_(x) ? pi : P(0), y));
    return cpack(qnan<P>(), x == P(0) ? pi * P(0.5) : qnan<P>());
  }
  complex<P> w = acos(z);  // acosh(z) = +-i acos(z), as msun's cacosh
  return cpack(::fabs(w.im), ::copysign(w.re, z.im));
}
// atanh as msun's catanh: log1p(4x / ((x-1)^2 + y^2)) / 4 and
// atan2(2y, (1-x)(1+x) - y^2) / 2, on |x| + i|y|.
template <class P> __host__ __device__ __forceinline__ complex<P> atanh(complex<P> z) {
  const P pi = cconst<P>::pi();
  P x = z.re, y = z.im, ax = ::fabs(x), ay = ::fabs(y), rx, ry;
  if (y == P(0) && ax <= P(1)) return cpack(::atanh(x), y);
  if (x == P(0) && !isnan_(y)) return cpack(x, ::atan(y));
  if (isnan_(x) || isnan_(y)) {
    if (isinf_(x)) return cpack(::copysign(P(0), x), y + y);
    if (isinf_(y)) return cpack(::copysign(P(0), x), ::copysign(pi * P(0.5), y));
    if (x == P(0)) return cpack(x, y);
    return cpack(qnan<P>(), qnan<P>());
  }
  if (ax > cconst<P>::recip_eps() || ay > cconst<P>::recip_eps()) {
    // Re(1/z), scaled so that the squares do not overflow.
    P s = P(1) / (ax > ay ? ax : ay);
    P xs = mul(ax, s), ys = mul(ay, s);
    rx = mul(xs, s) / (mul(xs, xs) + mul(ys, ys));
    if (!isfinite_(s) || s == P(0)) rx = P(0);
    return cpack(::copysign(rx, x), ::copysign(pi * P(0.5), y));
  }
  if (ax == P(1) && ay < cconst<P>::eps()) {
    rx = (cconst<P>::ln2() - ::log(ay)) / P(2);
  } else {
    P d = mul(ax - P(1), ax - P(1)) + mul(ay, ay);
    rx = ::log1p(P(4) * ax / d) / P(4);
  }
  if (ax == P(1)) ry = ::atan2(P(2), -ay) / P(2);
  else ry = ::atan2(P(2) * ay, mul(P(1) - ax, P(1) + ax) - mul(ay, ay)) / P(2);
  return cpack(::copysign(rx, x), ::copysign(ry, y));
}
template <class P> __host__ __device__ __forceinline__ complex<P> atan(complex<P> z) {
  complex<P> w = atanh(cpack(z.im, z.re));  // atan(z) = swap(atanh(swap(z)))
  return cpack(w.im, w.re);
}

// ---- complex64 ----
// Computed in complex128 and rounded once at the end, so that the GPU's own
// error (its float functions are up to 4 ulp off, and the formulas add a few
// roundings) drops out and a complex64 result is within about an ulp of the
// exact one; FP64 is fast enough on the GPUs this targets. fast_math keeps
// float32 throughout.
#if !__USE_FAST_MATH__
#define CJ_C64_IN_C128(f) \
  __host__ __device__ __forceinline__ c64 f(c64 z) { return to_c64(f(to_c128(z))); }
CJ_C64_IN_C128(exp)
CJ_C64_IN_C128(log)
CJ_C64_IN_C128(log2)
CJ_C64_IN_C128(log10)
CJ_C64_IN_C128(sqrt)
CJ_C64_IN_C128(sinh)
CJ_C64_IN_C128(cosh)
CJ_C64_IN_C128(tanh)
CJ_C64_IN_C128(sin)
CJ_C64_IN_C128(cos)
CJ_C64_IN_C128(tan)
CJ_C64_IN_C128(asinh)
CJ_C64_IN_C128(asin)
CJ_C64_IN_C128(acos)
CJ_C64_IN_C128(acosh)
CJ_C64_IN_C128(atanh)
CJ_C64_IN_C128(atan)
#undef CJ_C64_IN_C128

// NumPy's own formulas (exp2, expm1, log1p) round their intermediates in
// float32, and those roundings, not the functions', make most of NumPy's error
// (and its overflows: expm1's inf * sin 0 is NaN): the formulas are kept in
// float32, with each real function correctly rounded from double, as glibc's
// float functions nearly always are.
__host__ __device__ __forceinline__ float f32_of(double d) { return (float)d; }
__host__ __device__ __forceinline__ c64 exp2(c64 z) {
  return to_c64(exp(to_c128(cpack(mul(z.re, cconst<float>::ln2()), mul(z.im, cconst<float>::ln2())))));
}
__host__ __device__ __forceinline__ c64 expm1(c64 z) {
  float a = f32_of(::sin((double)(z.im / 2.0f)));
  float re = mul(f32_of(::expm1((double)z.re)), f32_of(::cos((double)z.im))) - mul(2.0f * a, a);
  return cpack(re, mul(f32_of(::exp((double)z.re)), f32_of(::sin((double)z.im))));
}
__host__ __device__ __forceinline__ c64 log1p(c64 z) {
  float x1 = z.re + 1.0f;
  float h = f32_of(::hypot((double)x1, (double)z.im));
  return cpack(f32_of(::log((double)h)), f32_of(::atan2((double)z.im, (double)x1)));
}
#endif

// np.power's complex loop (the ** operator's too).
template <class P> __host__ __device__ __forceinline__ complex<P> power(complex<P> a, complex<P> b) { return pow(a, b); }

}  // namespace cj

// ---- complex_math.cuh: complex elementary functions ----
// exp2, expm1, log2, log10, log1p and power use NumPy's own formulas
// (umath/funcs.inc.src, npy_math_complex.c); sqrt and log follow npy_csqrt and
// npy_clog; the inverse functions use Kahan's formulas ("Branch cuts for
// complex elementary functions", 1987) with C99 Annex G's special values.
namespace cj {

template <class P> struct cconst;
template <> struct cconst<float> {
  static __device__ __forceinline__ float ln2() { return 0.693147180559945309f; }
  static __device__ __forceinline__ float log2e() { return 1.44269504088896341f; }
  static __device__ __forceinline__ float log10e() { return 0.434294481903251828f; }
  static __device__ __forceinline__ float pi() { return 3.14159265358979324f; }
  static __device__ __forceinline__ float exp_ovf() { return 88.7228394f; }       // log(FLT_MAX)
  static __device__ __forceinline__ float exp_t() { return 88.0296919f; }         // (FLT_MAX_EXP - 1) * ln 2
  static __device__ __forceinline__ float tanh_t() { return 44.0148460f; }        // half of that
  static __device__ __forceinline__ float sqrt_big() { return 1.64e38f; }         // npy_csqrtf's THRESH, about
  static __device__ __forceinline__ float recip_eps() { return 8388608.0f; }      // 1/FLT_EPSILON
  static __device__ __forceinline__ float eps() { return 1.1920929e-7f; }
};
template <> struct cconst<double> {
  static __device__ __forceinline__ double ln2() { return 0.693147180559945309; }
  static __device__ __forceinline__ double log2e() { return 1.44269504088896341; }
  static __device__ __forceinline__ double log10e() { return 0.434294481903251828; }
  static __device__ __forceinline__ double pi() { return 3.14159265358979324; }
  static __device__ __forceinline__ double exp_ovf() { return 709.782712893384; }
  static __device__ __forceinline__ double exp_t() { return 709.089565712824; }
  static __device__ __forceinline__ double tanh_t() { return 354.544782856412; }
  static __device__ __forceinline__ double sqrt_big() { return 7.446288774449766e307; }
  static __device__ __forceinline__ double recip_eps() { return 4503599627370496.0; }
  static __device__ __forceinline__ double eps() { return 2.220446049250313e-16; }
};

// ---- exp and log ----
template <class P> __device__ __forceinline__ complex<P> exp(complex<P> z) {
  P x = z.re, y = z.im;
  if (y == P(0)) return cpack(::exp(x), y);
  if (isinf_(x)) {
    if (x < P(0)) {
      if (!isfinite_(y)) return cpack(P(0), P(0));
    } else if (!isfinite_(y)) {
      return cpack(x, y - y);  // inf + i nan
    }
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

template <class P> __device__ __forceinline__ complex<P> log(complex<P> z) {
  P ax = ::fabs(z.re), ay = ::fabs(z.im), rr;
  if (ax == P(0) && ay == P(0)) return cpack(P(-1) / ax, ::atan2(z.im, z.re));  // -inf, with the sign of the zeros' angle
  P am = ax > ay ? ax : ay, an = ax > ay ? ay : ax;
  P h = ::hypot(ax, ay);
  if (!isfinite_(h) && isfinite_(am)) {
    rr = ::log(::hypot(ax * P(0.5), ay * P(0.5))) + cconst<P>::ln2();
  } else if (P(0.71) <= h && h <= P(1.73)) {
    // Near |z| == 1, log(h) loses the bits that log1p keeps.
    rr = ::log1p(mul(am - P(1), am + P(1)) + mul(an, an)) * P(0.5);
  } else {
    rr = ::log(h);
  }
  return cpack(rr, ::atan2(z.im, z.re));
}

template <class P> __device__ __forceinline__ complex<P> exp2(complex<P> z) {
  return exp(cpack(mul(z.re, cconst<P>::ln2()), mul(z.im, cconst<P>::ln2())));
}
template <class P> __device__ __forceinline__ complex<P> expm1(complex<P> z) {
  P a = ::sin(z.im / P(2));
  return cpack(mul(::expm1(z.re), ::cos(z.im)) - mul(P(2) * a, a), mul(::exp(z.re), ::sin(z.im)));
}
template <class P> __device__ __forceinline__ complex<P> log2(complex<P> z) {
  complex<P> r = log(z);
  return cpack(mul(r.re, cconst<P>::log2e()), mul(r.im, cconst<P>::log2e()));
}
template <class P> __device__ __forceinline__ complex<P> log10(complex<P> z) {
  complex<P> r = log(z);
  return cpack(mul(r.re, cconst<P>::log10e()), mul(r.im, cconst<P>::log10e()));
}
template <class P> __device__ __forceinline__ complex<P> log1p(complex<P> z) {
  P l = ::hypot(z.re + P(1), z.im);
  return cpack(::log(l), ::atan2(z.im, z.re + P(1)));
}

// ---- sqrt (Algorithm 312, CACM 10, 1967, as npy_csqrt) ----
template <class P> __device__ __forceinline__ complex<P> sqrt(complex<P> z) {
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
  complex<P> r;
  if (a >= P(0)) {
    P t = ::sqrt((a + ::hypot(a, b)) * P(0.5));
    r = cpack(t, b / (P(2) * t));
  } else {
    P t = ::sqrt((-a + ::hypot(a, b)) * P(0.5));
    r = cpack(::fabs(b) / (P(2) * t), ::copysign(t, b));
  }
  if (scale) r = cpack(r.re * P(2), r.im * P(2));
  return r;
}

// ---- power (npy_cpow: exact small integer powers by repeated squaring) ----
template <class P> __device__ __forceinline__ complex<P> pow(complex<P> a, complex<P> b) {
  if (b.re == P(0) && b.im == P(0)) return cpack(P(1), P(0));
  if (a.re == P(0) && a.im == P(0)) {
    if (b.re > P(0) && b.im == P(0)) return cpack(P(0), P(0));
    return cpack(qnan<P>(), qnan<P>());
  }
  if (b.im == P(0) && b.re == ::trunc(b.re) && ::fabs(b.re) < P(100)) {
    int n = (int)b.re;
    if (n == 1) return a;
    if (n == 2) return mul(a, a);
    if (n == 3) return mul(a, mul(a, a));
    complex<P> acc = cpack(P(1), P(0)), p = a;
    int m = n < 0 ? -n : n;
    for (int mask = 1;; mask <<= 1) {
      if (m & mask) acc = mul(acc, p);
      if (m < (mask << 1)) break;
      p = mul(p, p);
    }
    if (b.re < P(0)) acc = div(cpack(P(1), P(0)), acc);
    return acc;
  }
  return exp(mul(b, log(a)));
}

// ---- hyperbolic and circular functions (glibc's algorithms, which NumPy uses on Linux) ----
// e^ax / 2 * (c, s) for ax beyond exp's range, where the product may still be
// finite: scaled by e^t in steps, as glibc's csinh/ccosh.
template <class P> __device__ __forceinline__ complex<P> half_exp_times(P ax, P c, P s) {
  const P t = cconst<P>::exp_t(), et = ::exp(t);
  P rx = ax - t;
  c = mul(c, et * P(0.5));
  s = mul(s, et * P(0.5));
  if (rx > t) {
    rx -= t;
    c = mul(c, et);
    s = mul(s, et);
  }
  P ev = rx > t ? inf<P>() : ::exp(rx);
  return cpack(mul(ev, c), mul(ev, s));
}
template <class P> __device__ __forceinline__ complex<P> sinh(complex<P> z) {
  P x = z.re, y = z.im;
  if (isinf_(x) && !isfinite_(y)) return cpack(x, y - y);
  if (x == P(0) && !isfinite_(y)) return cpack(x, y - y);
  if (y == P(0) && !isfinite_(x)) return z;
  P sy = ::sin(y), cy = ::cos(y);
  if (::fabs(x) > cconst<P>::exp_t()) return half_exp_times(::fabs(x), x < P(0) ? -cy : cy, sy);
  return cpack(mul(::sinh(x), cy), mul(::cosh(x), sy));
}
template <class P> __device__ __forceinline__ complex<P> cosh(complex<P> z) {
  P x = z.re, y = z.im;
  if (isinf_(x) && !isfinite_(y)) return cpack(::fabs(x), y - y);
  if (x == P(0) && !isfinite_(y)) return cpack(y - y, x);
  if (x == P(0) && y == P(0)) return cpack(P(1), y);
  if (y == P(0) && !isfinite_(x)) return cpack(::fabs(x), y);
  P sy = ::sin(y), cy = ::cos(y);
  if (::fabs(x) > cconst<P>::exp_t()) return half_exp_times(::fabs(x), cy, x < P(0) ? -sy : sy);
  return cpack(mul(::cosh(x), cy), mul(::sinh(x), sy));
}
// tanh z = (sinh x cosh x + i sin y cos y) / (sinh^2 x + cos^2 y).
template <class P> __device__ __forceinline__ complex<P> tanh(complex<P> z) {
  P x = z.re, y = z.im;
  if (isnan_(x)) return cpack(x, y == P(0) ? y : x);
  if (isinf_(x)) return cpack(::copysign(P(1), x), ::copysign(P(0), isinf_(y) ? y : mul(::sin(y), ::cos(y))));
  if (!isfinite_(y)) return cpack(y - y, y - y);
  P sy = ::sin(y), cy = ::cos(y);
  const P t = cconst<P>::tanh_t();
  if (::fabs(x) > t) {
    // sinh^2 x overflows: the imaginary part is 4 sin y cos y e^(-2|x|), in two steps.
    P e2t = ::exp(P(2) * t), ax = ::fabs(x) - t;
    P im = mul(mul(P(4), sy), cy) / e2t;
    im = ax > t ? im / e2t : im / ::exp(P(2) * ax);
    return cpack(::copysign(P(1), x), im);
  }
  P sh = ::sinh(x), ch = ::cosh(x);
  P den = ::fabs(sh) > mul(::fabs(cy), cconst<P>::eps()) ? mul(sh, sh) + mul(cy, cy) : mul(cy, cy);
  return cpack(mul(sh, ch) / den, mul(sy, cy) / den);
}
// sin z = -i sinh(iz), cos z = cosh(iz), tan z = -i tanh(iz).
template <class P> __device__ __forceinline__ complex<P> sin(complex<P> z) {
  complex<P> w = sinh(cpack(-z.im, z.re));
  return cpack(w.im, -w.re);
}
template <class P> __device__ __forceinline__ complex<P> cos(complex<P> z) { return cosh(cpack(-z.im, z.re)); }
template <class P> __device__ __forceinline__ complex<P> tan(complex<P> z) {
  complex<P> w = tanh(cpack(-z.im, z.re));
  return cpack(w.im, -w.re);
}

// ---- inverse functions ----
// asinh on |x| + i|y| (the result takes the signs back: asinh is odd and
// commutes with conj).
template <class P> __device__ __forceinline__ complex<P> asinh_q1(P x, P y) {
  const P pi = cconst<P>::pi();
  if (isnan_(x) || isnan_(y)) {
    if (isinf_(x)) return cpack(x, y);
    if (isinf_(y)) return cpack(y, x);
    if (y == P(0)) return cpack(x, y);
    return cpack(qnan<P>(), qnan<P>());
  }
  if (isinf_(x)) return cpack(x, isinf_(y) ? pi * P(0.25) : P(0));
  if (isinf_(y)) return cpack(y, pi * P(0.5));
  // asinh(z) = -i asin(iz); asin by Kahan: atan2(x, Re(s1 s2)) + i asinh(Im(conj(s1) s2)),
  // s1 = sqrt(1 - w), s2 = sqrt(1 + w), with w = iz = -y + ix.
  complex<P> s1 = sqrt(cpack(P(1) + y, -x)), s2 = sqrt(cpack(P(1) - y, x));
  P are = ::atan2(-y, mul(s1.re, s2.re) - mul(s1.im, s2.im));
  P aim = ::asinh(mul(s1.re, s2.im) - mul(s1.im, s2.re));
  return cpack(aim, -are);
}
template <class P> __device__ __forceinline__ complex<P> asinh(complex<P> z) {
  complex<P> w = asinh_q1(::fabs(z.re), ::fabs(z.im));
  return cpack(::copysign(w.re, z.re), ::copysign(w.im, z.im));
}
template <class P> __device__ __forceinline__ complex<P> asin(complex<P> z) {
  complex<P> w = asinh(cpack(z.im, z.re));  // asin(z) = swap(asinh(swap(z)))
  return cpack(w.im, w.re);
}
template <class P> __device__ __forceinline__ complex<P> acos(complex<P> z) {
  const P pi = cconst<P>::pi();
  P x = z.re, y = z.im;
  if (isnan_(x) || isnan_(y)) {
    if (isinf_(x)) return cpack(y, -x);
    if (isinf_(y)) return cpack(x, -y);
    if (x == P(0)) return cpack(pi * P(0.5), y);
    return cpack(qnan<P>(), qnan<P>());
  }
  if (isinf_(x) || isinf_(y)) {
    P re = isinf_(x) ? (isinf_(y) ? (x < P(0) ? pi * P(0.75) : pi * P(0.25)) : (x < P(0) ? pi : P(0))) : pi * P(0.5);
    return cpack(re, signbit_(y) ? inf<P>() : -inf<P>());
  }
  complex<P> s1 = sqrt(cpack(P(1) - x, -y)), s2 = sqrt(cpack(P(1) + x, y));
  return cpack(P(2) * ::atan2(s1.re, s2.re), ::asinh(mul(s2.re, s1.im) - mul(s2.im, s1.re)));
}
template <class P> __device__ __forceinline__ complex<P> acosh(complex<P> z) {
  complex<P> w = acos(z);  // acosh(z) = +-i acos(z), as msun's cacosh
  if (isnan_(w.re) && isnan_(w.im)) return cpack(w.im, w.re);
  if (isnan_(w.re)) return cpack(::fabs(w.im), w.re);
  if (isnan_(w.im)) return cpack(w.im, w.im);
  return cpack(::fabs(w.im), ::copysign(w.re, z.im));
}
// atanh as msun's catanh: log1p(4x / ((x-1)^2 + y^2)) / 4 and
// atan2(2y, (1-x)(1+x) - y^2) / 2, on |x| + i|y|.
template <class P> __device__ __forceinline__ complex<P> atanh(complex<P> z) {
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
template <class P> __device__ __forceinline__ complex<P> atan(complex<P> z) {
  complex<P> w = atanh(cpack(z.im, z.re));  // atan(z) = swap(atanh(swap(z)))
  return cpack(w.im, w.re);
}

}  // namespace cj

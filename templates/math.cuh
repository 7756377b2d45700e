// ---- math.cuh: NumPy's rules for floats, bools and ints (their loops of src/lang/ops.def) ----
namespace cj {

// Truth of a value, as bool(x) and NumPy's logical functions see it (NaN is true).
template <class T> __host__ __device__ __forceinline__ bool truth(T a) { return a != T(0); }
__host__ __device__ __forceinline__ bool truth(bool a) { return a; }
template <class A, class B> __host__ __device__ __forceinline__ bool land(A a, B b) { return truth(a) && truth(b); }
template <class A, class B> __host__ __device__ __forceinline__ bool lor(A a, B b) { return truth(a) || truth(b); }
template <class A, class B> __host__ __device__ __forceinline__ bool lxor(A a, B b) { return truth(a) != truth(b); }

// isnan/isinf/isfinite/signbit: for ints and bools they are constants, but the
// operand is still evaluated (it may read a raw array).
template <class T> __host__ __device__ __forceinline__ bool isnan_(T) { return false; }
template <class T> __host__ __device__ __forceinline__ bool isinf_(T) { return false; }
template <class T> __host__ __device__ __forceinline__ bool isfinite_(T) { return true; }
__host__ __device__ __forceinline__ bool isnan_(float a) { return a != a; }
__host__ __device__ __forceinline__ bool isnan_(double a) { return a != a; }
__host__ __device__ __forceinline__ bool isinf_(float a) { return fabsf(a) == __int_as_float(0x7f800000); }
__host__ __device__ __forceinline__ bool isinf_(double a) { return ::fabs(a) == __longlong_as_double(0x7ff0000000000000LL); }
__host__ __device__ __forceinline__ bool isfinite_(float a) { return fabsf(a) < __int_as_float(0x7f800000); }
__host__ __device__ __forceinline__ bool isfinite_(double a) { return ::fabs(a) < __longlong_as_double(0x7ff0000000000000LL); }
__host__ __device__ __forceinline__ bool signbit_(float a) { return __float_as_int(a) < 0; }
__host__ __device__ __forceinline__ bool signbit_(double a) { return __double_as_longlong(a) < 0; }

// maximum/minimum propagate NaN (the first one); fmax/fmin ignore it. A NaN
// `a` falls through the comparison (false) to `a` itself, so only `b` is
// tested: against a constant bound (clip(x, 0, 255)) that test folds away and
// one compare and select are left (the image programs are compute-bound on an H200).
// Of two equal values (-0.0 and 0.0) they give the second, as NumPy's
// float32 and float64 loops do, in arrays of any length (its float16 loops
// give the first: docs/language.md); clip keeps x, as NumPy's (clip below).
template <class T> __host__ __device__ __forceinline__ T maximum(T a, T b) {
  if (isnan_(b)) return isnan_(a) ? a : b;
  return a <= b ? b : a;
}
template <class T> __host__ __device__ __forceinline__ T minimum(T a, T b) {
  if (isnan_(b)) return isnan_(a) ? a : b;
  return b <= a ? b : a;
}
// The same, giving the first of two equal values.
template <class T> __host__ __device__ __forceinline__ T maximum_first(T a, T b) {
  if (isnan_(b)) return isnan_(a) ? a : b;
  return a < b ? b : a;
}
template <class T> __host__ __device__ __forceinline__ T minimum_first(T a, T b) {
  if (isnan_(b)) return isnan_(a) ? a : b;
  return b < a ? b : a;
}
__host__ __device__ __forceinline__ bool maximum(bool a, bool b) { return a || b; }
__host__ __device__ __forceinline__ bool minimum(bool a, bool b) { return a && b; }
__host__ __device__ __forceinline__ bool maximum_first(bool a, bool b) { return a || b; }
__host__ __device__ __forceinline__ bool minimum_first(bool a, bool b) { return a && b; }
template <class T> __host__ __device__ __forceinline__ T fmax_(T a, T b) {
  if (isnan_(b)) return a;
  if (isnan_(a)) return b;
  return maximum(a, b);
}
template <class T> __host__ __device__ __forceinline__ T fmin_(T a, T b) {
  if (isnan_(b)) return a;
  if (isnan_(a)) return b;
  return minimum(a, b);
}

template <class T> __host__ __device__ __forceinline__ T sign(T a) {
  // NaN passes through; ints and unsigned ints take the same path.
  return a > T(0) ? T(1) : neg_(a) ? T(-1) : a == T(0) ? T(0) : a;
}

__host__ __device__ __forceinline__ float square(float a) { return mul(a, a); }
__host__ __device__ __forceinline__ double square(double a) { return mul(a, a); }

// NumPy's npy_divmod: floor division and remainder with the sign of the divisor.
template <class T> __host__ __device__ __forceinline__ T ffloordiv(T a, T b) {
  if (b == T(0)) return a / b;
  T mod = ::fmod(a, b);
  T div = (a - mod) / b;
  if (mod != T(0)) {
    if ((b < T(0)) != (mod < T(0))) div -= T(1);
  }
  if (div != T(0)) {
    T fl = ::floor(div);
    if (div - fl > T(0.5)) fl += T(1);
    return fl;
  }
  return ::copysign(T(0), a / b);
}
template <class T> __host__ __device__ __forceinline__ T fremainder(T a, T b) {
  if (b == T(0)) return ::fmod(a, b);
  T mod = ::fmod(a, b);
  if (mod != T(0)) {
    if ((b < T(0)) != (mod < T(0))) mod += b;
  } else {
    mod = ::copysign(T(0), b);
  }
  return mod;
}

// pow for the exponents where it is one correctly rounded operation, as that
// operation: NumPy's x ** 0.5 is sqrt, CUDA's pow
// misses by an ulp at times, and the difference grows in what follows: x ** y
// ** 0.5 must be 27 for 3 and 9, and an even root of a negative base that is
// exact must stay an integer, not make a NaN. pow(x, 0.5) differs from sqrt(x)
// only at -0 and -inf (+0, +inf), which take pow.
template <class T> __host__ __device__ __forceinline__ T fpow(T a, T b) {
  if (b == T(0.5) && a > T(0)) return ::sqrt(a);
  if (b == T(2)) return mul(a, a);
  if (b == T(-1)) return T(1) / a;
  return ::pow(a, b);
}

// float32 lgamma and tgamma in double, rounded once: CUDA's float versions are
// up to 6 and 5 ulp off (more for lgamma on [-10.001, -2.264]), beyond the
// contract's 4; FP64 is fast enough on the GPUs this targets.
#if __USE_FAST_MATH__
__host__ __device__ __forceinline__ float lgamma_f32(float x) { return ::lgammaf(x); }
__host__ __device__ __forceinline__ float tgamma_f32(float x) { return ::tgammaf(x); }
#else
__host__ __device__ __forceinline__ float lgamma_f32(float x) { return (float)::lgamma((double)x); }
__host__ __device__ __forceinline__ float tgamma_f32(float x) { return (float)::tgamma((double)x); }
#endif


// ---- the bool and float loops of src/lang/ops.def's operations ----
// Each operation is one name, overloaded per compute type (int_ops.cuh holds
// the integer loops, complex*.cuh the complex ones); code generation emits
// calls of these and the CPU evaluator calls the same functions.
template <class T> __host__ __device__ __forceinline__ bool lt(T a, T b) { return a < b; }
template <class T> __host__ __device__ __forceinline__ bool le(T a, T b) { return a <= b; }
template <class T> __host__ __device__ __forceinline__ bool gt(T a, T b) { return a > b; }
template <class T> __host__ __device__ __forceinline__ bool ge(T a, T b) { return a >= b; }
template <class T> __host__ __device__ __forceinline__ bool eq(T a, T b) { return a == b; }
template <class T> __host__ __device__ __forceinline__ bool ne(T a, T b) { return a != b; }
template <class T> __host__ __device__ __forceinline__ bool lnot(T a) { return !truth(a); }
template <class T> __host__ __device__ __forceinline__ T pos(T a) { return a; }
template <class T> __host__ __device__ __forceinline__ T real(T a) { return a; }
// The operand is still evaluated (it may read a raw array).
template <class T> __host__ __device__ __forceinline__ T imag(T) { return T(0); }
template <class T> __host__ __device__ __forceinline__ T conj(T a) { return a; }
template <class T> __host__ __device__ __forceinline__ T clip(T x, T lo, T hi) { return minimum_first(maximum_first(x, lo), hi); }

__host__ __device__ __forceinline__ bool add(bool a, bool b) { return a || b; }
__host__ __device__ __forceinline__ bool mul(bool a, bool b) { return a && b; }
__host__ __device__ __forceinline__ bool bit_and(bool a, bool b) { return a && b; }
__host__ __device__ __forceinline__ bool bit_or(bool a, bool b) { return a || b; }
__host__ __device__ __forceinline__ bool bit_xor(bool a, bool b) { return a != b; }
__host__ __device__ __forceinline__ bool bit_not(bool a) { return !a; }
__host__ __device__ __forceinline__ bool absolute(bool a) { return a; }
__host__ __device__ __forceinline__ bool floor(bool a) { return a; }
__host__ __device__ __forceinline__ bool ceil(bool a) { return a; }
__host__ __device__ __forceinline__ bool trunc(bool a) { return a; }

// float32 (and the 16-bit floats, computed in it) and float64: the C library
// functions of each width, or NumPy's own algorithm where it has one.
#define CJ_REAL1(name, f32, f64) \
  __host__ __device__ __forceinline__ float name(float a) { return f32; } \
  __host__ __device__ __forceinline__ double name(double a) { return f64; }
#define CJ_REAL2(name, f32, f64) \
  __host__ __device__ __forceinline__ float name(float a, float b) { return f32; } \
  __host__ __device__ __forceinline__ double name(double a, double b) { return f64; }
CJ_REAL2(add, a + b, a + b)
CJ_REAL2(sub, a - b, a - b)
CJ_REAL2(div, a / b, a / b)
CJ_REAL2(remainder, fremainder(a, b), fremainder(a, b))
CJ_REAL2(floor_divide, ffloordiv(a, b), ffloordiv(a, b))
CJ_REAL2(fmod, ::fmodf(a, b), ::fmod(a, b))
CJ_REAL2(power, fpow(a, b), fpow(a, b))
CJ_REAL2(atan2, ::atan2f(a, b), ::atan2(a, b))
CJ_REAL2(hypot, ::hypotf(a, b), ::hypot(a, b))
CJ_REAL2(copysign, ::copysignf(a, b), ::copysign(a, b))
// Sign operations on the bits, as NumPy's: the GPU's neg and abs are
// arithmetic, which makes any NaN the canonical one (a float16 -x of a NaN
// lost its payload on an H100).
#ifdef __CUDA_ARCH__
CJ_REAL1(neg, __int_as_float(__float_as_int(a) ^ (int)0x80000000), __longlong_as_double(__double_as_longlong(a) ^ (long long)0x8000000000000000ULL))
CJ_REAL1(absolute, __int_as_float(__float_as_int(a) & 0x7fffffff), __longlong_as_double(__double_as_longlong(a) & 0x7fffffffffffffffLL))
#else
CJ_REAL1(neg, -a, -a)
CJ_REAL1(absolute, ::fabsf(a), ::fabs(a))
#endif
CJ_REAL1(reciprocal, 1.0f / a, 1.0 / a)
CJ_REAL1(floor, ::floorf(a), ::floor(a))
CJ_REAL1(ceil, ::ceilf(a), ::ceil(a))
CJ_REAL1(trunc, ::truncf(a), ::trunc(a))
CJ_REAL1(rint, ::rintf(a), ::rint(a))
CJ_REAL1(sin, ::sinf(a), ::sin(a))
CJ_REAL1(cos, ::cosf(a), ::cos(a))
CJ_REAL1(tan, ::tanf(a), ::tan(a))
CJ_REAL1(asin, ::asinf(a), ::asin(a))
CJ_REAL1(acos, ::acosf(a), ::acos(a))
CJ_REAL1(atan, ::atanf(a), ::atan(a))
CJ_REAL1(sinh, ::sinhf(a), ::sinh(a))
CJ_REAL1(cosh, ::coshf(a), ::cosh(a))
CJ_REAL1(tanh, ::tanhf(a), ::tanh(a))
CJ_REAL1(asinh, ::asinhf(a), ::asinh(a))
CJ_REAL1(acosh, ::acoshf(a), ::acosh(a))
CJ_REAL1(atanh, ::atanhf(a), ::atanh(a))
CJ_REAL1(exp, ::expf(a), ::exp(a))
CJ_REAL1(exp2, ::exp2f(a), ::exp2(a))
CJ_REAL1(expm1, ::expm1f(a), ::expm1(a))
CJ_REAL1(log, ::logf(a), ::log(a))
CJ_REAL1(log2, ::log2f(a), ::log2(a))
CJ_REAL1(log10, ::log10f(a), ::log10(a))
CJ_REAL1(log1p, ::log1pf(a), ::log1p(a))
CJ_REAL1(sqrt, ::sqrtf(a), ::sqrt(a))
CJ_REAL1(cbrt, ::cbrtf(a), ::cbrt(a))
CJ_REAL1(erf, ::erff(a), ::erf(a))
CJ_REAL1(erfc, ::erfcf(a), ::erfc(a))
CJ_REAL1(lgamma, lgamma_f32(a), ::lgamma(a))
CJ_REAL1(tgamma, tgamma_f32(a), ::tgamma(a))
// x * (pi/180) in the loop's type, the constant rounded to it, as NumPy's.
CJ_REAL1(deg2rad, mul(a, (float)(3.141592653589793238462643383279502884 / 180.0)),
         mul(a, 3.141592653589793238462643383279502884 / 180.0))
CJ_REAL1(rad2deg, mul(a, (float)(180.0 / 3.141592653589793238462643383279502884)),
         mul(a, 180.0 / 3.141592653589793238462643383279502884))
#undef CJ_REAL1
#undef CJ_REAL2

// np.nextafter: the next value after a toward b in the loop's own type, so
// the 16-bit floats step on their own grids (their values are held exactly in
// float; the step is taken on their bits).
__host__ __device__ __forceinline__ float nextafter(float a, float b) { return ::nextafterf(a, b); }
__host__ __device__ __forceinline__ double nextafter(double a, double b) { return ::nextafter(a, b); }
__host__ __device__ __forceinline__ float nextafter(float a, float b, bf16_tag) {
  if (a != a || b != b) return a + b;
  if (a == b) return b;
  if (a == 0.0f) return ::copysignf(__uint_as_float(0x10000u), b);  // the smallest subnormal, toward b
  const unsigned u = __float_as_uint(a);  // a bfloat16 value: the top 16 bits of its float
  return __uint_as_float((a < b) == (a > 0.0f) ? u + 0x10000u : u - 0x10000u);
}
__host__ __device__ __forceinline__ float nextafter(float a, float b, f16_tag) {
  if (a != a || b != b) return a + b;
  if (a == b) return a;  // npy_half_nextafter keeps x (C's nextafter, the wider loops', returns y)
  if (a == 0.0f) return ::copysignf(5.9604644775390625e-08f, b);  // 2^-24, the smallest subnormal
  const unsigned u = __float_as_uint(a), sign = (u >> 16) & 0x8000u;
  const int e = (int)((u >> 23) & 0xffu) - 127;
  const float m = ::fabsf(a);
  // Its float16 magnitude bits: inf, normal, or a multiple of 2^-24 (subnormal).
  unsigned h = e == 128 ? 0x7c00u : e >= -14 ? (unsigned)((e + 15) << 10) | ((u & 0x7fffffu) >> 13)
                                             : (unsigned)(m * 16777216.0f);
  h = (a < b) == (a > 0.0f) ? h + 1u : h - 1u;
  const unsigned he = h >> 10, hm = h & 0x3ffu;
  const float r = he == 0x1fu ? __uint_as_float(0x7f800000u)
                  : he == 0u  ? (float)hm * 5.9604644775390625e-08f
                              : __uint_as_float(((he + 112u) << 23) | (hm << 13));
  return sign ? -r : r;
}

}  // namespace cj

// ---- math.cuh: NumPy's rules for floats, bools and ints (mirrors src/scalar.hpp) ----
namespace cj {

// Truth of a value, as bool(x) and NumPy's logical functions see it (NaN is true).
template <class T> __device__ __forceinline__ bool truth(T a) { return a != T(0); }
__device__ __forceinline__ bool truth(bool a) { return a; }
template <class A, class B> __device__ __forceinline__ bool land(A a, B b) { return truth(a) && truth(b); }
template <class A, class B> __device__ __forceinline__ bool lor(A a, B b) { return truth(a) || truth(b); }
template <class A, class B> __device__ __forceinline__ bool lxor(A a, B b) { return truth(a) != truth(b); }

// isnan/isinf/isfinite/signbit: for ints and bools they are constants, but the
// operand is still evaluated (it may read a raw array).
template <class T> __device__ __forceinline__ bool isnan_(T) { return false; }
template <class T> __device__ __forceinline__ bool isinf_(T) { return false; }
template <class T> __device__ __forceinline__ bool isfinite_(T) { return true; }
__device__ __forceinline__ bool isnan_(float a) { return a != a; }
__device__ __forceinline__ bool isnan_(double a) { return a != a; }
__device__ __forceinline__ bool isinf_(float a) { return fabsf(a) == __int_as_float(0x7f800000); }
__device__ __forceinline__ bool isinf_(double a) { return ::fabs(a) == __longlong_as_double(0x7ff0000000000000LL); }
__device__ __forceinline__ bool isfinite_(float a) { return fabsf(a) < __int_as_float(0x7f800000); }
__device__ __forceinline__ bool isfinite_(double a) { return ::fabs(a) < __longlong_as_double(0x7ff0000000000000LL); }
__device__ __forceinline__ bool signbit_(float a) { return __float_as_int(a) < 0; }
__device__ __forceinline__ bool signbit_(double a) { return __double_as_longlong(a) < 0; }

// maximum/minimum propagate NaN; fmax/fmin ignore it.
template <class T> __device__ __forceinline__ T maximum(T a, T b) {
  if (isnan_(a)) return a;
  if (isnan_(b)) return b;
  return a < b ? b : a;
}
template <class T> __device__ __forceinline__ T minimum(T a, T b) {
  if (isnan_(a)) return a;
  if (isnan_(b)) return b;
  return b < a ? b : a;
}
__device__ __forceinline__ bool maximum(bool a, bool b) { return a || b; }
__device__ __forceinline__ bool minimum(bool a, bool b) { return a && b; }
template <class T> __device__ __forceinline__ T fmax_(T a, T b) {
  if (isnan_(b)) return a;
  if (isnan_(a)) return b;
  return maximum(a, b);
}
template <class T> __device__ __forceinline__ T fmin_(T a, T b) {
  if (isnan_(b)) return a;
  if (isnan_(a)) return b;
  return minimum(a, b);
}

template <class T> __device__ __forceinline__ T sign(T a) {
  // NaN passes through; ints and unsigned ints take the same path.
  return a > T(0) ? T(1) : neg_(a) ? T(-1) : a == T(0) ? T(0) : a;
}

__device__ __forceinline__ float square(float a) { return mul(a, a); }
__device__ __forceinline__ double square(double a) { return mul(a, a); }

// NumPy's npy_divmod: floor division and remainder with the sign of the divisor.
template <class T> __device__ __forceinline__ T ffloordiv(T a, T b) {
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
template <class T> __device__ __forceinline__ T fremainder(T a, T b) {
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
// operation (src/scalar.hpp's fpow): NumPy's x ** 0.5 is sqrt, CUDA's pow
// misses by an ulp at times, and the difference grows in what follows: x ** y
// ** 0.5 must be 27 for 3 and 9, and an even root of a negative base that is
// exact must stay an integer, not make a NaN. pow(x, 0.5) differs from sqrt(x)
// only at -0 and -inf (+0, +inf), which take pow.
template <class T> __device__ __forceinline__ T fpow(T a, T b) {
  if (b == T(0.5) && a > T(0)) return ::sqrt(a);
  if (b == T(2)) return mul(a, a);
  if (b == T(-1)) return T(1) / a;
  return ::pow(a, b);
}

// float32 lgamma and tgamma in double, rounded once: CUDA's float versions are
// up to 6 and 5 ulp off (more for lgamma on [-10.001, -2.264]), beyond the
// contract's 4; FP64 is fast enough on the GPUs this targets.
#if __USE_FAST_MATH__
__device__ __forceinline__ float lgamma_f32(float x) { return ::lgammaf(x); }
__device__ __forceinline__ float tgamma_f32(float x) { return ::tgammaf(x); }
#else
__device__ __forceinline__ float lgamma_f32(float x) { return (float)::lgamma((double)x); }
__device__ __forceinline__ float tgamma_f32(float x) { return (float)::tgamma((double)x); }
#endif

}  // namespace cj

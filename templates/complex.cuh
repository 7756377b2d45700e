// ---- complex.cuh: complex64/complex128 as NumPy computes them ----
// A plain aggregate (no <cuda/std/complex>: it costs NVRTC far more than this
// file). Layout as NumPy's: real then imaginary part, aligned to its size.
namespace cj {

template <class P> struct alignas(2 * sizeof(P)) complex { P re, im; };
typedef complex<float> c64;
typedef complex<double> c128;

template <class P> __host__ __device__ __forceinline__ P qnan();
template <> __host__ __device__ __forceinline__ float qnan<float>() { return __int_as_float(0x7fc00000); }
template <> __host__ __device__ __forceinline__ double qnan<double>() { return __longlong_as_double(0x7ff8000000000000LL); }
template <class P> __host__ __device__ __forceinline__ P inf();
template <> __host__ __device__ __forceinline__ float inf<float>() { return __int_as_float(0x7f800000); }
template <> __host__ __device__ __forceinline__ double inf<double>() { return __longlong_as_double(0x7ff0000000000000LL); }

template <class P> __host__ __device__ __forceinline__ complex<P> cpack(P re, P im) {
  complex<P> r;
  r.re = re;
  r.im = im;
  return r;
}

template <class P> __host__ __device__ __forceinline__ bool truth(complex<P> a) { return a.re != P(0) || a.im != P(0); }
template <class P> __host__ __device__ __forceinline__ bool isnan_(complex<P> a) { return a.re != a.re || a.im != a.im; }
template <class P> __host__ __device__ __forceinline__ bool isinf_(complex<P> a) { return isinf_(a.re) || isinf_(a.im); }
template <class P> __host__ __device__ __forceinline__ bool isfinite_(complex<P> a) { return isfinite_(a.re) && isfinite_(a.im); }

template <class P> __host__ __device__ __forceinline__ complex<P> add(complex<P> a, complex<P> b) { return cpack(a.re + b.re, a.im + b.im); }
template <class P> __host__ __device__ __forceinline__ complex<P> sub(complex<P> a, complex<P> b) { return cpack(a.re - b.re, a.im - b.im); }
template <class P> __host__ __device__ __forceinline__ complex<P> neg(complex<P> a) { return cpack(-a.re, -a.im); }
template <class P> __host__ __device__ __forceinline__ complex<P> conj(complex<P> a) { return cpack(a.re, -a.im); }
// NumPy's scalar paths (npy_cpow's powers of 3 and more) multiply by the
// textbook formula, every product and sum rounded.
template <class P> __host__ __device__ __forceinline__ complex<P> mul_textbook(complex<P> a, complex<P> b) {
  return cpack(mul(a.re, b.re) - mul(a.im, b.im), mul(a.re, b.im) + mul(a.im, b.re));
}
#ifndef __CUDA_ARCH__
// On the CPU, a*b + c as a fused operation gives it where an operand is not
// finite (square(1e38 + inf j) is -inf + inf j, not NaN), with one NaN for
// every order a compiler gives the operations, whether the loops were built
// with the FMA instruction or call the C library's fma (which propagate NaNs
// apart): a NaN operand's own (c's, then a's, then b's), else the default NaN.
template <class P> __host__ __forceinline__ P fma_special_(P a, P b, P c) {
  if (c != c) return c + c;
  if (a != a) return a + a;
  if (b != b) return b + b;
  if (isfinite_(a) && isfinite_(b)) return c + c;  // a finite product leaves an infinite c
  return a * b + c;
}
#endif
__host__ __device__ __forceinline__ float fma_(float a, float b, float c) {
#ifndef __CUDA_ARCH__
  if (!(isfinite_(a) && isfinite_(b) && isfinite_(c))) return fma_special_(a, b, c);
#endif
  return fmaf(a, b, c);
}
__host__ __device__ __forceinline__ double fma_(double a, double b, double c) {
#ifndef __CUDA_ARCH__
  if (!(isfinite_(a) && isfinite_(b) && isfinite_(c))) return fma_special_(a, b, c);
#endif
  return fma(a, b, c);
}
// NumPy's array loops (`*`, `square`, `** 2`) multiply with one fused
// multiply-add a part, SIMD's fmaddsub on every x86-64 CPU with AVX2 and on
// ARM64: the real part a.re*b.re - round(a.im*b.im) rounded once, the
// imaginary part a.re*b.im + round(a.im*b.re). The textbook formula differs
// from it in the last bit of about a quarter of products (NumPy 2.4, float32
// and float64 alike; tests/cli/numpy_elementwise_diff.py found it).
template <class P> __host__ __device__ __forceinline__ complex<P> mul(complex<P> a, complex<P> b) {
  return cpack(fma_(a.re, b.re, -mul(a.im, b.im)), fma_(a.re, b.im, mul(a.im, b.re)));
}
template <class P> __host__ __device__ __forceinline__ complex<P> square(complex<P> a) { return mul(a, a); }
// NumPy's division: Smith's method, scaling by the larger part of the divisor.
template <class P> __host__ __device__ __forceinline__ complex<P> div(complex<P> a, complex<P> b) {
  P abs_br = ::fabs(b.re), abs_bi = ::fabs(b.im);
  if (abs_br >= abs_bi) {
    if (abs_br == P(0) && abs_bi == P(0)) return cpack(a.re / abs_br, a.im / abs_br);  // complex inf or nan
    P rat = b.im / b.re;
    P scl = P(1) / (b.re + mul(b.im, rat));
    return cpack(mul(a.re + mul(a.im, rat), scl), mul(a.im - mul(a.re, rat), scl));
  }
  P rat = b.re / b.im;
  P scl = P(1) / (b.im + mul(b.re, rat));
  return cpack(mul(mul(a.re, rat) + a.im, scl), mul(mul(a.im, rat) - a.re, scl));
}
template <class P> __host__ __device__ __forceinline__ complex<P> reciprocal(complex<P> a) {
  if (::fabs(a.im) <= ::fabs(a.re)) {
    P r = a.im / a.re;
    P d = a.re + mul(a.im, r);
    return cpack(P(1) / d, -r / d);
  }
  P r = a.re / a.im;
  P d = mul(a.re, r) + a.im;
  return cpack(r / d, P(-1) / d);
}
template <class P> __host__ __device__ __forceinline__ P abs(complex<P> a) { return ::hypot(a.re, a.im); }
template <class P> __host__ __device__ __forceinline__ complex<P> rint(complex<P> a) { return cpack(::rint(a.re), ::rint(a.im)); }

// Ordering is lexicographic, as NumPy's; a NaN part makes every ordered comparison false.
template <class P> __host__ __device__ __forceinline__ bool eq(complex<P> a, complex<P> b) { return a.re == b.re && a.im == b.im; }
template <class P> __host__ __device__ __forceinline__ bool ne(complex<P> a, complex<P> b) { return !eq(a, b); }
template <class P> __host__ __device__ __forceinline__ bool clt(complex<P> a, complex<P> b) {
  return a.re < b.re || (a.re == b.re && a.im < b.im);
}
template <class P> __host__ __device__ __forceinline__ bool lt(complex<P> a, complex<P> b) {
  return !isnan_(a) && !isnan_(b) && clt(a, b);
}
template <class P> __host__ __device__ __forceinline__ bool gt(complex<P> a, complex<P> b) { return lt(b, a); }
template <class P> __host__ __device__ __forceinline__ bool le(complex<P> a, complex<P> b) {
  return !isnan_(a) && !isnan_(b) && (clt(a, b) || eq(a, b));
}
template <class P> __host__ __device__ __forceinline__ bool ge(complex<P> a, complex<P> b) { return le(b, a); }

template <class P> __host__ __device__ __forceinline__ complex<P> maximum(complex<P> a, complex<P> b) {
  if (isnan_(a)) return a;
  if (isnan_(b)) return b;
  return clt(a, b) ? b : a;
}
template <class P> __host__ __device__ __forceinline__ complex<P> minimum(complex<P> a, complex<P> b) {
  if (isnan_(a)) return a;
  if (isnan_(b)) return b;
  return clt(b, a) ? b : a;
}
// Of two equal values (a part -0.0 in one, 0.0 in the other) NumPy's complex
// loops give the first, as maximum and minimum above do.
template <class P> __host__ __device__ __forceinline__ complex<P> maximum_first(complex<P> a, complex<P> b) { return maximum(a, b); }
template <class P> __host__ __device__ __forceinline__ complex<P> minimum_first(complex<P> a, complex<P> b) { return minimum(a, b); }
template <class P> __host__ __device__ __forceinline__ complex<P> fmax_(complex<P> a, complex<P> b) {
  if (isnan_(b)) return a;
  if (isnan_(a)) return b;
  return maximum(a, b);
}
template <class P> __host__ __device__ __forceinline__ complex<P> fmin_(complex<P> a, complex<P> b) {
  if (isnan_(b)) return a;
  if (isnan_(a)) return b;
  return minimum(a, b);
}

// NumPy 2's sign: z/|z| by Smith's quotient; one infinite part gives that
// axis's unit whatever the other part is; two infinite parts or a NaN give NaN.
template <class P> __host__ __device__ __forceinline__ complex<P> sign(complex<P> a) {
  bool ri = isinf_(a.re), ii = isinf_(a.im);
  if (ri != ii) return ri ? cpack(::copysign(P(1), a.re), P(0)) : cpack(P(0), ::copysign(P(1), a.im));
  if (ri || isnan_(a)) return cpack(qnan<P>(), qnan<P>());
  P m = abs(a);
  if (m == P(0)) return cpack(P(0), P(0));
  return div(a, cpack(m, P(0)));
}

}  // namespace cj

namespace cj {
// The cast of the language (cast.cuh) into and out of complex: a real value
// gets a zero imaginary part, a complex one its parts converted (C's
// conversions, round to nearest); to a real type a complex value keeps its
// real part (NumPy's ComplexWarning case), to bool it is nonzero if either
// part is.
template <class P, class From> struct conv_<complex<P>, From> {
  static __host__ __device__ __forceinline__ complex<P> f(From x) { return cpack((P)x, P(0)); }
};
template <class P, class Q> struct conv_<complex<P>, complex<Q>> {
  static __host__ __device__ __forceinline__ complex<P> f(complex<Q> z) { return cpack((P)z.re, (P)z.im); }
};
template <class To, class P> struct conv_<To, complex<P>> {
  static __host__ __device__ __forceinline__ To f(complex<P> z) { return conv_<To, P>::f(z.re); }
};
template <class P> struct conv_<bool, complex<P>> {
  static __host__ __device__ __forceinline__ bool f(complex<P> z) { return truth(z); }
};
template <class P> struct conv_<f16_tag, complex<P>> {
  static __device__ __forceinline__ float f(complex<P> z) { return conv_<f16_tag, P>::f(z.re); }
  static __device__ __forceinline__ cj_u16 bits(complex<P> z) { return conv_<f16_tag, P>::bits(z.re); }
};
template <class P> struct conv_<bf16_tag, complex<P>> {
  static __device__ __forceinline__ float f(complex<P> z) { return conv_<bf16_tag, P>::f(z.re); }
  static __device__ __forceinline__ cj_u16 bits(complex<P> z) { return conv_<bf16_tag, P>::bits(z.re); }
};
template <class T> __host__ __device__ __forceinline__ c64 to_c64(T x) { return conv_<c64, T>::f(x); }
template <class T> __host__ __device__ __forceinline__ c128 to_c128(T x) { return conv_<c128, T>::f(x); }

// complex(re, im): NumPy's `re + im*1j`, both parts already in the result's
// complex type. Computed as NumPy does, by its complex product and sum, so an
// infinite or NaN part spreads as there (im = inf gives a NaN real part) and
// a negative zero im gives +0 (-0*1 + 0*0).
template <class P> __host__ __device__ __forceinline__ complex<P> make_complex(complex<P> re, complex<P> im) {
  return add(re, mul_textbook(im, cpack(P(0), P(1))));
}

// The complex loops of src/lang/ops.def's operations that return a real value.
template <class P> __host__ __device__ __forceinline__ P absolute(complex<P> a) { return abs(a); }
template <class P> __host__ __device__ __forceinline__ P real(complex<P> a) { return a.re; }
template <class P> __host__ __device__ __forceinline__ P imag(complex<P> a) { return a.im; }

}  // namespace cj

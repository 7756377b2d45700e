// ---- half.cuh: float16 and bfloat16 as bit patterns, computed in float ----
// A 16-bit float value lives in a float that holds it exactly; every operation
// rounds its float result back (round to nearest even), as NumPy's loops do.
// Own helpers instead of <cuda_fp16.h>/<cuda_bf16.h>: a few lines compile in
// no time, and bfloat16 rounding runs on GPUs before sm_80 too (on the bits,
// as src/half.hpp does, where PTX has no cvt to bfloat16).
namespace cj {

#ifndef CJ_HOST_SHIM
// PTX's conversions (src/cpu/ops_host.hpp stands in for them on the host).
__device__ __forceinline__ float cvt_f32_f16(cj_u16 h) {
  float f;
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  return f;
}
__device__ __forceinline__ cj_u16 cvt_rn_f16_f32(float f) {
  cj_u16 h;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
}
__device__ __forceinline__ cj_u16 cvt_rn_f16_f64(double d) {
  cj_u16 h;
  asm("cvt.rn.f16.f64 %0, %1;" : "=h"(h) : "d"(d));
  return h;
}
__device__ __forceinline__ float cvt_rn_f16_roundtrip(float f) {
  float r;
  asm("{ .reg .f16 t; cvt.rn.f16.f32 t, %1; cvt.f32.f16 %0, t; }" : "=f"(r) : "f"(f));
  return r;
}
#endif

// cvt gives every NaN as the canonical one (positive), and NumPy keeps a NaN's
// sign and payload through conversions, which copysign and signbit then see:
// NaNs are converted on their bits, as src/half.hpp does. Selects, not
// branches: a vector kernel holds these once per lane, and branches there
// cost NVRTC far more time than they save the GPU.
__device__ __forceinline__ float h2f(cj_u16 h) {
  const float f = cvt_f32_f16(h);
  const unsigned nan = ((unsigned)(h & 0x8000u) << 16) | 0x7f800000u | ((unsigned)(h & 0x3ffu) << 13);
  return (h & 0x7fffu) > 0x7c00u ? __uint_as_float(nan) : f;
}
// A vector of float16 into floats: one NaN test for the whole vector (two
// lanes per 32-bit word: m + 0x3ff carries into bit 15 exactly when m, the
// magnitude's bits, is above infinity's 0x7c00), then PTX's cvt for every
// lane, and h2f's bit-exact path only when some lane is a NaN. h2f on each
// lane held float16 programs to 0.8 of the memory's speed on an H200.
template <class V, int N> __device__ __forceinline__ void h2f_vec(const V& a, float (&f)[N]) {
  unsigned nan = 0;
#pragma unroll
  for (int j = 0; j + 1 < N; j += 2) {
    const unsigned w = (unsigned)a.v[j] | ((unsigned)a.v[j + 1] << 16);
    nan |= ((w & 0x7fff7fffu) + 0x03ff03ffu) & 0x80008000u;
  }
  if (N % 2) nan |= (unsigned)((a.v[N - 1] & 0x7fffu) > 0x7c00u);
  if (nan == 0) {
#pragma unroll
    for (int j = 0; j < N; ++j) f[j] = cvt_f32_f16(a.v[j]);
  } else {
#pragma unroll
    for (int j = 0; j < N; ++j) f[j] = h2f(a.v[j]);
  }
}
__device__ __forceinline__ cj_u16 f2h(float f) {
  const unsigned x = __float_as_uint(f);
  const cj_u16 h = cvt_rn_f16_f32(f);
  // A NaN as NumPy makes it (src/core/half.hpp's float_to_half): the payload's
  // top bits, quiet or not as they were, never 0.
  const unsigned p = (x >> 13) & 0x3ffu;
  const cj_u16 nan = (cj_u16)(((x >> 16) & 0x8000u) | 0x7c00u | (p ? p : 1u));
  return (x & 0x7fffffffu) > 0x7f800000u ? nan : h;
}
// Floats into a vector of float16: one NaN test for the vector, PTX's cvt
// for every lane, f2h's sign- and payload-keeping path only when a lane is a NaN.
template <int N, class V> __device__ __forceinline__ void f2h_vec(const float (&f)[N], V& a) {
  bool nan = false;
#pragma unroll
  for (int j = 0; j < N; ++j) nan |= f[j] != f[j];
  if (!nan) {
#pragma unroll
    for (int j = 0; j < N; ++j) a.v[j] = cvt_rn_f16_f32(f[j]);
  } else {
#pragma unroll
    for (int j = 0; j < N; ++j) a.v[j] = f2h(f[j]);
  }
}
// double -> float16 in one rounding (no double rounding through float).
__device__ __forceinline__ cj_u16 d2h(double d) {
  unsigned long long x = (unsigned long long)__double_as_longlong(d);
  if ((x & 0x7fffffffffffffffull) > 0x7ff0000000000000ull)
    return (cj_u16)(((x >> 48) & 0x8000u) | 0x7c00u | (((x >> 42) & 0x3ffu) ? ((x >> 42) & 0x3ffu) : 1u));
  return cvt_rn_f16_f64(d);
}
// Rounding an intermediate: a NaN stays itself (its sign is what later
// operations can see; the payload bits below float16's are dropped on store).
__device__ __forceinline__ float rnd_f16(float f) {
  const float r = cvt_rn_f16_roundtrip(f);
  return f != f ? f : r;
}
__device__ __forceinline__ float rnd_f16(double d) { return h2f(d2h(d)); }

__device__ __forceinline__ float b2f(cj_u16 b) { return __uint_as_float((unsigned)b << 16); }
// float -> bfloat16, round to nearest even; a NaN keeps its sign and the
// payload's top bits, made quiet (as src/half.hpp). From sm_80 PTX's cvt
// rounds in one instruction (same bits: both are IEEE round to nearest even,
// subnormals kept) and only the NaN is done on the bits: the integer
// rounding held bfloat16 x*0.5 + y to 0.81 of the memory's speed (H200).
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800 && !defined(CJ_HOST_SHIM)
#define CJ_BF16_CVT 1
__device__ __forceinline__ cj_u16 cvt_rn_bf16_f32(float f) {
  cj_u16 h;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(h) : "f"(f));
  return h;
}
// Two floats into one word of two bfloat16: lo in the low half.
__device__ __forceinline__ unsigned cvt_rn_bf16x2_f32(float lo, float hi) {
  unsigned w;
  asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(w) : "f"(hi), "f"(lo));
  return w;
}
#endif
__device__ __forceinline__ cj_u16 f2b(float f) {
  unsigned x = __float_as_uint(f);
  const cj_u16 nan = (cj_u16)((x >> 16) | 0x40u);
#ifdef CJ_BF16_CVT
  return (x & 0x7fffffffu) > 0x7f800000u ? nan : cvt_rn_bf16_f32(f);
#else
  if ((x & 0x7fffffffu) > 0x7f800000u) return nan;
  x += 0x7fffu + ((x >> 16) & 1u);
  return (cj_u16)(x >> 16);
#endif
}
// Floats into a vector of bfloat16 (the contiguous kernel's store): one NaN
// test for the vector, then two lanes per cvt; f2b per lane when a lane is a NaN.
template <int N, class V> __device__ __forceinline__ void f2b_vec(const float (&f)[N], V& a) {
#ifdef CJ_BF16_CVT
  bool nan = false;
#pragma unroll
  for (int j = 0; j < N; ++j) nan |= f[j] != f[j];
  if (!nan && N % 2 == 0) {
#pragma unroll
    for (int j = 0; j + 1 < N; j += 2) {
      const unsigned w = cvt_rn_bf16x2_f32(f[j], f[j + 1]);
      a.v[j] = (cj_u16)w;
      a.v[j + 1] = (cj_u16)(w >> 16);
    }
    return;
  }
#endif
#pragma unroll
  for (int j = 0; j < N; ++j) a.v[j] = f2b(f[j]);
}
// double -> float rounding to odd (truncate, then set the last bit if
// inexact), so that the second rounding to bfloat16 is a correct one.
__device__ __forceinline__ float d2f_odd(double d) {
  unsigned long long x = (unsigned long long)__double_as_longlong(d);
  if ((x & 0x7fffffffffffffffull) > 0x7ff0000000000000ull)  // NaN: sign and payload kept (as above)
    return __uint_as_float((unsigned)((x >> 32) & 0x80000000u) | 0x7fc00000u | (unsigned)((x >> 29) & 0x3fffffu));
  float f = __double2float_rz(d);
  if ((double)f != d && fabsf(f) < __int_as_float(0x7f800000)) f = __uint_as_float(__float_as_uint(f) | 1u);
  return f;
}
#ifdef CJ_BF16_CVT
// f2b then b2f, with the NaN's bits made in one step.
__device__ __forceinline__ float rnd_bf16(float f) {
  const float nan = __uint_as_float((__float_as_uint(f) & 0xffff0000u) | 0x00400000u);
  return f != f ? nan : b2f(cvt_rn_bf16_f32(f));
}
#else
__device__ __forceinline__ float rnd_bf16(float f) { return b2f(f2b(f)); }
#endif
__device__ __forceinline__ float rnd_bf16(double d) { return b2f(f2b(d2f_odd(d))); }

// The cast to a 16-bit float (cast.cuh's cj::cast<f16_tag> and <bf16_tag>):
// one rounding of the exact value, which C's conversion gives through float
// for bool and 8/16-bit integers and through double for the wider integers
// (exact up to 2^53, far beyond float16's range). f gives the rounded value
// in compute representation, bits the stored element (what the CPU
// evaluator's registers hold).
__device__ __forceinline__ float exact_(bool x) { return (float)x; }
__device__ __forceinline__ float exact_(cj_i8 x) { return (float)x; }
__device__ __forceinline__ float exact_(cj_u8 x) { return (float)x; }
__device__ __forceinline__ float exact_(cj_i16 x) { return (float)x; }
__device__ __forceinline__ float exact_(cj_u16 x) { return (float)x; }
__device__ __forceinline__ double exact_(cj_i32 x) { return (double)x; }
__device__ __forceinline__ double exact_(cj_u32 x) { return (double)x; }
__device__ __forceinline__ double exact_(cj_i64 x) { return (double)x; }
__device__ __forceinline__ double exact_(cj_u64 x) { return (double)x; }
__device__ __forceinline__ float exact_(float x) { return x; }
__device__ __forceinline__ double exact_(double x) { return x; }
__device__ __forceinline__ cj_u16 f16_bits_(float x) { return f2h(x); }
__device__ __forceinline__ cj_u16 f16_bits_(double x) { return d2h(x); }
__device__ __forceinline__ cj_u16 bf16_bits_(float x) { return f2b(x); }
__device__ __forceinline__ cj_u16 bf16_bits_(double x) { return f2b(d2f_odd(x)); }

template <class From> struct conv_<f16_tag, From> {
  static __device__ __forceinline__ float f(From x) { return rnd_f16(exact_(x)); }
  static __device__ __forceinline__ cj_u16 bits(From x) { return f16_bits_(exact_(x)); }
};
template <class From> struct conv_<bf16_tag, From> {
  static __device__ __forceinline__ float f(From x) { return rnd_bf16(exact_(x)); }
  static __device__ __forceinline__ cj_u16 bits(From x) { return bf16_bits_(exact_(x)); }
};

}  // namespace cj

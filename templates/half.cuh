// ---- half.cuh: float16 and bfloat16 as bit patterns, computed in float ----
// A 16-bit float value lives in a float that holds it exactly; every operation
// rounds its float result back (round to nearest even), as NumPy's loops do.
// Own helpers instead of <cuda_fp16.h>/<cuda_bf16.h>: a few lines compile in
// no time, and bfloat16 rounding is done on the bits as src/half.hpp does,
// which needs no sm_80 instruction.
namespace cj {

// cvt gives every NaN as the canonical one (positive), and NumPy keeps a NaN's
// sign and payload through conversions, which copysign and signbit then see:
// NaNs are converted on their bits, as src/half.hpp does. Selects, not
// branches: a vector kernel holds these once per lane, and branches there
// cost NVRTC far more time than they save the GPU.
__device__ __forceinline__ float h2f(cj_u16 h) {
  float f = 0;  // the asm sets it (initialized for the host tests, which compile this without asm)
  asm("cvt.f32.f16 %0, %1;" : "=f"(f) : "h"(h));
  const unsigned nan = ((unsigned)(h & 0x8000u) << 16) | 0x7f800000u | ((unsigned)(h & 0x3ffu) << 13);
  return (h & 0x7fffu) > 0x7c00u ? __uint_as_float(nan) : f;
}
__device__ __forceinline__ cj_u16 f2h(float f) {
  const unsigned x = __float_as_uint(f);
  cj_u16 h = 0;
  asm("cvt.rn.f16.f32 %0, %1;" : "=h"(h) : "f"(f));
  const cj_u16 nan = (cj_u16)(((x >> 16) & 0x8000u) | 0x7e00u | ((x >> 13) & 0x3ffu));
  return (x & 0x7fffffffu) > 0x7f800000u ? nan : h;
}
// double -> float16 in one rounding (no double rounding through float).
__device__ __forceinline__ cj_u16 d2h(double d) {
  unsigned long long x = (unsigned long long)__double_as_longlong(d);
  if ((x & 0x7fffffffffffffffull) > 0x7ff0000000000000ull)
    return (cj_u16)(((x >> 48) & 0x8000u) | 0x7e00u | ((x >> 42) & 0x3ffu));
  cj_u16 h = 0;
  asm("cvt.rn.f16.f64 %0, %1;" : "=h"(h) : "d"(d));
  return h;
}
// Rounding an intermediate: a NaN stays itself (its sign is what later
// operations can see; the payload bits below float16's are dropped on store).
__device__ __forceinline__ float rnd_f16(float f) {
  float r = f;
  asm("{ .reg .f16 t; cvt.rn.f16.f32 t, %1; cvt.f32.f16 %0, t; }" : "=f"(r) : "f"(f));
  return f != f ? f : r;
}
__device__ __forceinline__ float rnd_f16(double d) { return h2f(d2h(d)); }

__device__ __forceinline__ float b2f(cj_u16 b) { return __uint_as_float((unsigned)b << 16); }
__device__ __forceinline__ cj_u16 f2b(float f) {
  unsigned x = __float_as_uint(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (cj_u16)((x >> 16) | 0x40u);  // quiet nan
  x += 0x7fffu + ((x >> 16) & 1u);
  return (cj_u16)(x >> 16);
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
__device__ __forceinline__ float rnd_bf16(float f) { return b2f(f2b(f)); }
__device__ __forceinline__ float rnd_bf16(double d) { return b2f(f2b(d2f_odd(d))); }

}  // namespace cj

// ---- cast.cuh: float -> int conversions of the language ----
// Truncate toward zero; NaN gives 0; out-of-range values saturate. PTX's
// cvt.rzi saturates for 32- and 64-bit results; 8- and 16-bit results are
// clamped from the 32-bit one, and NaN is tested explicitly.
namespace cj {

template <class T> struct f2i_;
template <> struct f2i_<cj_i8> {
  static __host__ __device__ __forceinline__ cj_i8 f(float x) { return (cj_i8)min(max(__float2int_rz(x), -128), 127); }
  static __host__ __device__ __forceinline__ cj_i8 f(double x) { return (cj_i8)min(max(__double2int_rz(x), -128), 127); }
};
template <> struct f2i_<cj_i16> {
  static __host__ __device__ __forceinline__ cj_i16 f(float x) { return (cj_i16)min(max(__float2int_rz(x), -32768), 32767); }
  static __host__ __device__ __forceinline__ cj_i16 f(double x) { return (cj_i16)min(max(__double2int_rz(x), -32768), 32767); }
};
template <> struct f2i_<cj_i32> {
  static __host__ __device__ __forceinline__ cj_i32 f(float x) { return __float2int_rz(x); }
  static __host__ __device__ __forceinline__ cj_i32 f(double x) { return __double2int_rz(x); }
};
template <> struct f2i_<cj_i64> {
  static __host__ __device__ __forceinline__ cj_i64 f(float x) { return __float2ll_rz(x); }
  static __host__ __device__ __forceinline__ cj_i64 f(double x) { return __double2ll_rz(x); }
};
template <> struct f2i_<cj_u8> {
  static __host__ __device__ __forceinline__ cj_u8 f(float x) { return (cj_u8)min(__float2uint_rz(x), 255u); }
  static __host__ __device__ __forceinline__ cj_u8 f(double x) { return (cj_u8)min(__double2uint_rz(x), 255u); }
};
template <> struct f2i_<cj_u16> {
  static __host__ __device__ __forceinline__ cj_u16 f(float x) { return (cj_u16)min(__float2uint_rz(x), 65535u); }
  static __host__ __device__ __forceinline__ cj_u16 f(double x) { return (cj_u16)min(__double2uint_rz(x), 65535u); }
};
template <> struct f2i_<cj_u32> {
  static __host__ __device__ __forceinline__ cj_u32 f(float x) { return __float2uint_rz(x); }
  static __host__ __device__ __forceinline__ cj_u32 f(double x) { return __double2uint_rz(x); }
};
template <> struct f2i_<cj_u64> {
  static __host__ __device__ __forceinline__ cj_u64 f(float x) { return __float2ull_rz(x); }
  static __host__ __device__ __forceinline__ cj_u64 f(double x) { return __double2ull_rz(x); }
};
template <class T, class F> __host__ __device__ __forceinline__ T f2i(F x) { return x != x ? T(0) : f2i_<T>::f(x); }

}  // namespace cj

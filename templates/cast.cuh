// ---- cast.cuh: the cast of the language, written once ----
// cj::cast<To>(x) converts a value in compute representation (bool, the
// integers, float, double; the complex helpers add complex, the 16-bit float
// helpers cj::f16_tag/bf16_tag, values held in float) as NumPy's astype
// does: C's conversion, except that float -> int truncates toward zero and
// saturates (NaN gives 0) as CUDA's cvt.rzi.sat does, and complex -> real
// keeps the real part. Code generation emits calls of it and the CPU
// evaluator (src/cpu) and src/scalar.hpp call the same functions compiled as
// host C++, so both back ends convert identically.
namespace cj {

// Float -> int: PTX's cvt.rzi saturates for 32- and 64-bit results; 8- and
// 16-bit results are clamped from the 32-bit one, and NaN is tested explicitly.
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
// (Unsigned 8/16-bit results clamp the signed 32-bit conversion too: the same
// values, and a conversion the host's vector units have, which keeps the CPU
// evaluator's loops vectorized.)
template <> struct f2i_<cj_u8> {
  static __host__ __device__ __forceinline__ cj_u8 f(float x) { return (cj_u8)min(max(__float2int_rz(x), 0), 255); }
  static __host__ __device__ __forceinline__ cj_u8 f(double x) { return (cj_u8)min(max(__double2int_rz(x), 0), 255); }
};
template <> struct f2i_<cj_u16> {
  static __host__ __device__ __forceinline__ cj_u16 f(float x) { return (cj_u16)min(max(__float2int_rz(x), 0), 65535); }
  static __host__ __device__ __forceinline__ cj_u16 f(double x) { return (cj_u16)min(max(__double2int_rz(x), 0), 65535); }
};
template <> struct f2i_<cj_u32> {
  static __host__ __device__ __forceinline__ cj_u32 f(float x) { return __float2uint_rz(x); }
  static __host__ __device__ __forceinline__ cj_u32 f(double x) { return __double2uint_rz(x); }
};
template <> struct f2i_<cj_u64> {
  static __host__ __device__ __forceinline__ cj_u64 f(float x) { return __float2ull_rz(x); }
  static __host__ __device__ __forceinline__ cj_u64 f(double x) { return __double2ull_rz(x); }
};
template <class T, class F> struct f2i_nan_ {
  static __host__ __device__ __forceinline__ T f(F x) { return x != x ? T(0) : f2i_<T>::f(x); }
};
#ifdef __CUDA_ARCH__
// float to uint8/uint16 on the GPU: fmaxf(NaN, 0) is 0, and a float clamped
// to the type's range truncates into it: the same values in three
// instructions, not five (uint8 image programs are compute-bound on an H200).
// And no conversion unit: the GPU converts a quarter as many values per clock
// as it adds (its XU pipe), and I2F + FRND + F2I per byte held uint8 image
// programs to the XU's speed (Nsight Compute: XU 74% busy, DRAM 32%, H100).
// A clamped v in [0, 65535] added to 2^23 rounding toward zero leaves
// trunc(v) in the sum's low mantissa bits, exactly.
template <> struct f2i_nan_<cj_u8, float> {
  static __device__ __forceinline__ cj_u8 f(float x) {
    return (cj_u8)__float_as_uint(__fadd_rz(fminf(fmaxf(x, 0.f), 255.f), 8388608.f));
  }
};
template <> struct f2i_nan_<cj_u16, float> {
  static __device__ __forceinline__ cj_u16 f(float x) {
    return (cj_u16)__float_as_uint(__fadd_rz(fminf(fmaxf(x, 0.f), 65535.f), 8388608.f));
  }
};
#endif
template <class T, class F> __host__ __device__ __forceinline__ T f2i(F x) { return f2i_nan_<T, F>::f(x); }

template <class T> struct is_float_ { static const bool v = false; };
template <> struct is_float_<float> { static const bool v = true; };
template <> struct is_float_<double> { static const bool v = true; };
template <class T> struct is_int_ { static const bool v = false; };
template <> struct is_int_<cj_i8> { static const bool v = true; };
template <> struct is_int_<cj_i16> { static const bool v = true; };
template <> struct is_int_<cj_i32> { static const bool v = true; };
template <> struct is_int_<cj_i64> { static const bool v = true; };
template <> struct is_int_<cj_u8> { static const bool v = true; };
template <> struct is_int_<cj_u16> { static const bool v = true; };
template <> struct is_int_<cj_u32> { static const bool v = true; };
template <> struct is_int_<cj_u64> { static const bool v = true; };

// Between real types: f2i for float -> integer, C's conversion otherwise (to
// bool: nonzero, NaN included; to float: round to nearest).
template <class To, class From> struct conv_ {
  static __host__ __device__ __forceinline__ To f(From x) {
    if constexpr (is_float_<From>::v && is_int_<To>::v) return f2i<To>(x);
    else return (To)x;
  }
};

#ifdef __CUDA_ARCH__
// 8- and 16-bit integers to float on the GPU without the conversion unit (see
// f2i_nan_ above): 2^23 + x as bits, minus 2^23, is x exactly (the signed ones
// offset by 2^15 into the unsigned range first).
__device__ __forceinline__ float small_int_to_float_(unsigned biased, float bias) {
  return __fsub_rn(__uint_as_float(0x4b000000u | biased), bias);
}
template <> struct conv_<float, cj_u8> {
  static __device__ __forceinline__ float f(cj_u8 x) { return small_int_to_float_(x, 8388608.f); }
};
template <> struct conv_<float, cj_u16> {
  static __device__ __forceinline__ float f(cj_u16 x) { return small_int_to_float_(x, 8388608.f); }
};
template <> struct conv_<float, cj_i8> {
  static __device__ __forceinline__ float f(cj_i8 x) { return small_int_to_float_((unsigned)((int)x + 32768), 8421376.f); }
};
template <> struct conv_<float, cj_i16> {
  static __device__ __forceinline__ float f(cj_i16 x) { return small_int_to_float_((unsigned)((int)x + 32768), 8421376.f); }
};
#endif

template <class To, class From> __host__ __device__ __forceinline__ auto cast(From x) { return conv_<To, From>::f(x); }

// cast<T>(clip(x, lo, hi)) for T uint8/uint16, where code generation has
// checked that the bounds are finite constants with lo < 1, lo <= hi and
// hi >= 0: then a NaN, which the cast makes 0, may clamp to lo (it truncates
// to 0), and the clip and the cast's saturation are one clamp to
// [max(lo, 0), min(hi, T's max)], which the compiler folds to two min/max.
template <class T> struct uint_max_;
template <> struct uint_max_<cj_u8> { static constexpr float v = 255.f; };
template <> struct uint_max_<cj_u16> { static constexpr float v = 65535.f; };
template <class T> __host__ __device__ __forceinline__ T clip_cast(float x, float lo, float hi) {
  const float c = fminf(fmaxf(x, fmaxf(lo, 0.f)), fminf(hi, uint_max_<T>::v));
#ifdef __CUDA_ARCH__
  return (T)__float_as_uint(__fadd_rz(c, 8388608.f));  // trunc(c) in the low bits, as f2i_nan_ above
#else
  return (T)c;
#endif
}

}  // namespace cj

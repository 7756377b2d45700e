// ---- prelude.cuh: fixed-width names and vector chunks, without <cstdint> ----
// NVRTC compiles this with no headers at all, so a float32 kernel costs only
// its own lines.
typedef signed char cj_i8;
typedef short cj_i16;
typedef int cj_i32;
typedef long long cj_i64;
typedef unsigned char cj_u8;
typedef unsigned short cj_u16;
typedef unsigned int cj_u32;
typedef unsigned long long cj_u64;

namespace cj {

// N elements moved as one aligned load or store (A = min(16, N * sizeof(T))
// bytes), which the compiler turns into ld/st.global.v2/v4.
template <class T, int N, int A> struct alignas(A) vec { T v[N]; };

// A vector of 8- or 16-bit elements moved as 32-bit words. Loaded or stored as
// itself, such a vector was taken apart and built again a byte at a time: the
// uint8 image program at 2^28 on an H200 took 163 us that way, 151 us through
// words (bench/results/layouts_h200/ab_vectors_2026-11-25.md).
template <class V> __device__ __forceinline__ V vload(const V* p) {
  typedef vec<unsigned, sizeof(V) / 4, alignof(V)> W;
  union { W w; V v; } u;
  u.w = *reinterpret_cast<const W*>(p);
  return u.v;
}
template <class V> __device__ __forceinline__ void vstore(V* p, const V& v) {
  typedef vec<unsigned, sizeof(V) / 4, alignof(V)> W;
  union { W w; V v; } u;
  u.v = v;
  *reinterpret_cast<W*>(p) = u.w;
}

// Products never fuse with a neighbouring add into an FMA: NumPy rounds every
// operation, so the GPU must too. fast_math lets them fuse.
#if __USE_FAST_MATH__
__host__ __device__ __forceinline__ float mul(float a, float b) { return a * b; }
__host__ __device__ __forceinline__ double mul(double a, double b) { return a * b; }
#else
__host__ __device__ __forceinline__ float mul(float a, float b) { return __fmul_rn(a, b); }
__host__ __device__ __forceinline__ double mul(double a, double b) { return __dmul_rn(a, b); }
#endif

// Every operand of an operation is evaluated before it is applied, as the CPU
// evaluator does (a raw index out of bounds is reported even where the other
// branch is taken), so these are functions, not C's short-circuit operators.
template <class T> __host__ __device__ __forceinline__ T select(bool c, T a, T b) { return c ? a : b; }

// Whether a value is negative, without comparing an unsigned one with 0
// (which compilers flag as pointless in every unsigned instantiation).
template <class T> __host__ __device__ __forceinline__ bool neg_(T a) { return a < T(0); }
__host__ __device__ __forceinline__ bool neg_(bool) { return false; }
__host__ __device__ __forceinline__ bool neg_(cj_u8) { return false; }
__host__ __device__ __forceinline__ bool neg_(cj_u16) { return false; }
__host__ __device__ __forceinline__ bool neg_(cj_u32) { return false; }
__host__ __device__ __forceinline__ bool neg_(cj_u64) { return false; }

// The element at a byte offset from p (strided operands).
template <class T, class O> __host__ __device__ __forceinline__ const T& at(const T* p, O off) {
  return *reinterpret_cast<const T*>(reinterpret_cast<const char*>(p) + off);
}
template <class T, class O> __host__ __device__ __forceinline__ T& at(T* p, O off) {
  return *reinterpret_cast<T*>(reinterpret_cast<char*>(p) + off);
}
// Operations with loops of their own for float16 and bfloat16 (ops.def's flag
// h) take one of these last: their 16-bit values are held in float.
struct f16_tag {};
struct bf16_tag {};

// The cast of the language, cj::cast<To>(x): declared here, so that the 16-bit
// float and complex helpers can add their types' conversions to it.
template <class To, class From> struct conv_;
}  // namespace cj

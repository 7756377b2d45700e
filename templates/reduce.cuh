// ---- reduce.cuh: the combine operations of the reduction kernels ----
// Each operation is a struct with the accumulator type `acc`, its identity,
// lift (one mapped value at its flat index within the reduced range into an
// accumulator) and combine. Every combine here is commutative and associative
// on the values it can see (argmin/argmax break ties by index, so the order of
// the operands never decides), and the kernels combine in a fixed tree for a
// given shape: the result's bits do not depend on block scheduling.
namespace cj {
namespace red {

template <class T> __device__ __forceinline__ bool isnan_(T) { return false; }
__device__ __forceinline__ bool isnan_(float v) { return v != v; }
__device__ __forceinline__ bool isnan_(double v) { return v != v; }
// nansum, nanprod: NaN counts as the identity.
template <class V> __device__ __forceinline__ V nan_to(V v, V identity) { return isnan_(v) ? identity : v; }

// Sums and products: float16/bfloat16 come in as float (their compute type)
// and accumulate in float; integers wrap as NumPy's do (computed unsigned,
// where C++ leaves signed overflow undefined).
template <class T> struct wrap_ { typedef T type; };
template <> struct wrap_<cj_i8> { typedef cj_u8 type; };
template <> struct wrap_<cj_i16> { typedef cj_u16 type; };
template <> struct wrap_<cj_i32> { typedef cj_u32 type; };
template <> struct wrap_<cj_i64> { typedef cj_u64 type; };

template <class T> struct sum {
  typedef T acc;
  static __device__ __forceinline__ acc identity() { return T(0); }
  static __device__ __forceinline__ acc lift(T v, long long) { return v; }
  static __device__ __forceinline__ acc combine(acc a, acc b) {
    typedef typename wrap_<T>::type W;
    return (T)((W)a + (W)b);
  }
};
template <class T> struct prod {
  typedef T acc;
  static __device__ __forceinline__ acc identity() { return T(1); }
  static __device__ __forceinline__ acc lift(T v, long long) { return v; }
  static __device__ __forceinline__ acc combine(acc a, acc b) {
    typedef typename wrap_<T>::type W;
    return (T)((W)a * (W)b);
  }
};

// min/max propagate NaN (NumPy's minimum/maximum). Which NaN comes out is
// not NumPy's to promise, nor ours: float takes PTX's max.NaN/min.NaN (one
// instruction, sm_80+: a select chain cost float16's 8 lanes per load the
// memory's speed), whose NaN is the canonical one; a zero's sign between
// +0 and -0 is the instruction's too.
template <class T> __device__ __forceinline__ T min2_(T a, T b) {
  if (isnan_(a)) return a;
  if (isnan_(b)) return b;
  return b < a ? b : a;
}
template <class T> __device__ __forceinline__ T max2_(T a, T b) {
  if (isnan_(a)) return a;
  if (isnan_(b)) return b;
  return b > a ? b : a;
}
// double has no max.NaN: fmin/fmax drop a NaN, a + b keeps one. Selects,
// not the branches above: a branch per element split the rows kernel's
// block step, and max of float64 fell from 0.91 to 0.71 of the memory's
// speed at 2^26 (H200).
// (A select in PTX: NVVM made a C++ ?: of these into branches.)
__device__ __forceinline__ double nan_or_(double a, double b, double r) {
  double out;
  asm("{\n\t.reg .pred p;\n\tsetp.nan.f64 p, %1, %2;\n\tselp.f64 %0, %3, %4, p;\n\t}"
      : "=d"(out) : "d"(a), "d"(b), "d"(a + b), "d"(r));
  return out;
}
template <> __device__ __forceinline__ double min2_<double>(double a, double b) { return nan_or_(a, b, fmin(a, b)); }
template <> __device__ __forceinline__ double max2_<double>(double a, double b) { return nan_or_(a, b, fmax(a, b)); }
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
template <> __device__ __forceinline__ float min2_<float>(float a, float b) {
  float r;
  asm("min.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}
template <> __device__ __forceinline__ float max2_<float>(float a, float b) {
  float r;
  asm("max.NaN.f32 %0, %1, %2;" : "=f"(r) : "f"(a), "f"(b));
  return r;
}
#endif

template <class T> struct min {
  typedef T acc;
  static __device__ __forceinline__ acc identity();
  static __device__ __forceinline__ acc lift(T v, long long) { return v; }
  static __device__ __forceinline__ acc combine(acc a, acc b) { return min2_(a, b); }
};
template <class T> struct max {
  typedef T acc;
  static __device__ __forceinline__ acc identity();
  static __device__ __forceinline__ acc lift(T v, long long) { return v; }
  static __device__ __forceinline__ acc combine(acc a, acc b) { return max2_(a, b); }
};
// Identities of min/max: the type's extreme (infinity for floats). An empty
// min/max is an error in NumPy; the host refuses it before launching.
template <class T> struct lim_;
#define CJ_RED_LIMITS(T, LO, HI) \
  template <> struct lim_<T> { static __device__ __forceinline__ T lo() { return LO; } static __device__ __forceinline__ T hi() { return HI; } };
CJ_RED_LIMITS(bool, false, true)
CJ_RED_LIMITS(cj_i8, (cj_i8)-128, (cj_i8)127)
CJ_RED_LIMITS(cj_u8, (cj_u8)0, (cj_u8)255)
CJ_RED_LIMITS(cj_i16, (cj_i16)-32768, (cj_i16)32767)
CJ_RED_LIMITS(cj_u16, (cj_u16)0, (cj_u16)65535)
CJ_RED_LIMITS(cj_i32, (cj_i32)(-2147483647 - 1), (cj_i32)2147483647)
CJ_RED_LIMITS(cj_u32, 0u, 0xffffffffu)
CJ_RED_LIMITS(cj_i64, (cj_i64)(-9223372036854775807LL - 1), (cj_i64)9223372036854775807LL)
CJ_RED_LIMITS(cj_u64, 0ull, 0xffffffffffffffffull)
CJ_RED_LIMITS(float, -__int_as_float(0x7f800000), __int_as_float(0x7f800000))
CJ_RED_LIMITS(double, -__longlong_as_double(0x7ff0000000000000LL), __longlong_as_double(0x7ff0000000000000LL))
#undef CJ_RED_LIMITS
template <class T> __device__ __forceinline__ T min<T>::identity() { return lim_<T>::hi(); }
template <class T> __device__ __forceinline__ T max<T>::identity() { return lim_<T>::lo(); }

// argmin/argmax: a value and its index. A NaN beats every number and the
// first NaN wins; among equal values the first index wins. The identity's
// index is past every real one, so it loses every tie. The index is I: int
// where the reduced axis is shorter than 2^31 - 1 (the host's plan says),
// so that a float's pair is 8 bytes, not 16 with 4 of padding: half the
// shuffles in the block trees and 32-bit compares.
template <class T, class I> struct arg_acc {
  T v;
  I i;
};
template <class I> struct arg_none_;
template <> struct arg_none_<int> { static __device__ __forceinline__ int value() { return 0x7fffffff; } };
template <> struct arg_none_<long long> { static __device__ __forceinline__ long long value() { return 0x7fffffffffffffffLL; } };
template <class T, bool Max, class I> struct arg_ {
  typedef arg_acc<T, I> acc;
  static __device__ __forceinline__ acc identity() {
    acc a;
    a.v = Max ? lim_<T>::lo() : lim_<T>::hi();
    a.i = arg_none_<I>::value();
    return a;
  }
  static __device__ __forceinline__ acc lift(T v, long long i) {
    acc a;
    a.v = v;
    a.i = (I)i;
    return a;
  }
  static __device__ __forceinline__ acc combine(acc a, acc b) {
    // Without branches: b wins as a NaN before a's (or over a number), or
    // as a better number, or an equal one at a smaller index. The branches
    // cost the block trees 1.03-1.15x at 2^20-2^22 (H200).
    const bool na = isnan_(a.v), nb = isnan_(b.v);
    const bool earlier = b.i < a.i;
    const bool better = nb ? (!na | earlier) : (!na & ((Max ? b.v > a.v : b.v < a.v) | ((b.v == a.v) & earlier)));
    a.v = better ? b.v : a.v;
    a.i = better ? b.i : a.i;
    return a;
  }
};
// argmin/argmax a whole vector at a time (the rows kernel): a slot keeps the
// best value of the vectors it has seen and where the first vector holding
// it starts; cj_vfinish loads that one vector again for the index. A vector
// costs VEC-1 min/max and one test, where a pair per element cost ~19
// instructions per element (bench/results/reductions_h200/ncu_h200.txt). A
// slot sees its vectors in index order, so a later vector takes the slot
// only when strictly better: the first among equals, and the first NaN.
template <class T, bool Max, class I> struct arg_slot_ {
  static __device__ __forceinline__ T pick(T a, T b) { return Max ? max2_(a, b) : min2_(a, b); }
  // The best of a vector's N values, in a tree (no chain of N-1 dependent steps).
  template <int N> static __device__ __forceinline__ T best(T (&x)[N]) {
#pragma unroll
    for (int s = N / 2; s > 0; s /= 2)
#pragma unroll
      for (int k = 0; k < s; ++k) x[k] = pick(x[k], x[k + s]);
    return x[0];
  }
  static __device__ __forceinline__ arg_acc<T, I> take(arg_acc<T, I> a, T m, long long j) {
    // An empty slot takes its first vector whatever it holds (an infinity too).
    // Bitwise, not short-circuit: no branches between the loads of a step.
    const bool take = (a.i == arg_none_<I>::value()) | (!isnan_(a.v) & (isnan_(m) | (Max ? m > a.v : m < a.v)));
    a.v = take ? m : a.v;
    a.i = take ? (I)j : a.i;
    return a;
  }
};
template <class T, class I = long long> struct argmin : arg_<T, false, I> {};
template <class T, class I = long long> struct argmax : arg_<T, true, I> {};

// One more element into an accumulator: combine(a, lift(v, j)), except that
// argmin/argmax, whose elements reach each accumulator in index order (the
// kernels keep to that), skip building and comparing a pair: a third of the
// instructions of the general combine, which float16's 8 elements per load
// could not afford at the memory's speed.
template <class Op> struct add1_ {
  template <class V> static __device__ __forceinline__ typename Op::acc run(typename Op::acc a, V v, long long j) {
    return Op::combine(a, Op::lift(v, j));
  }
};
template <class T, bool Max, class I> __device__ __forceinline__ arg_acc<T, I> add1_arg_(arg_acc<T, I> a, T v, long long j) {
  // The identity's index loses every tie, so a first element equal to it
  // (an infinity) still takes its place.
  const bool take = !isnan_(a.v) && (isnan_(v) || (Max ? v > a.v : v < a.v) || (v == a.v && (I)j < a.i));
  a.v = take ? v : a.v;
  a.i = take ? (I)j : a.i;
  return a;
}
template <class T, class I> struct add1_<argmax<T, I> > {
  static __device__ __forceinline__ arg_acc<T, I> run(arg_acc<T, I> a, T v, long long j) { return add1_arg_<T, true, I>(a, v, j); }
};
template <class T, class I> struct add1_<argmin<T, I> > {
  static __device__ __forceinline__ arg_acc<T, I> run(arg_acc<T, I> a, T v, long long j) { return add1_arg_<T, false, I>(a, v, j); }
};
template <class Op, class V>
__device__ __forceinline__ typename Op::acc add1(typename Op::acc a, V v, long long j) {
  return add1_<Op>::run(a, v, j);
}

struct any {
  typedef bool acc;
  static __device__ __forceinline__ acc identity() { return false; }
  template <class V> static __device__ __forceinline__ acc lift(V v, long long) { return v != V(0); }
  static __device__ __forceinline__ acc combine(acc a, acc b) { return a || b; }
};
struct all {
  typedef bool acc;
  static __device__ __forceinline__ acc identity() { return true; }
  template <class V> static __device__ __forceinline__ acc lift(V v, long long) { return v != V(0); }
  static __device__ __forceinline__ acc combine(acc a, acc b) { return a && b; }
};

// Mean and variance by Welford's update and Chan's combine: one pass, and
// as accurate as the two-pass formula on data with a large mean (the sum of
// squares would cancel). The count is kept in T too: exact to 2^24 elements
// per partial in float, and a relative error of 2^-24 in a weight beyond.
template <class T> struct welford_acc {
  T n, mean, m2;
};
template <class T> struct welford {
  typedef welford_acc<T> acc;
  static __device__ __forceinline__ acc identity() {
    acc a;
    a.n = T(0);
    a.mean = T(0);
    a.m2 = T(0);
    return a;
  }
  static __device__ __forceinline__ acc lift(T v, long long) {
    acc a;
    a.n = T(1);
    a.mean = v;
    a.m2 = T(0);
    return a;
  }
  static __device__ __forceinline__ acc combine(acc a, acc b) {
    if (a.n == T(0)) return b;
    if (b.n == T(0)) return a;
    acc r;
    r.n = a.n + b.n;
    const T d = b.mean - a.mean;
    const T wb = b.n / r.n;
    r.mean = a.mean + d * wb;
    r.m2 = a.m2 + b.m2 + d * d * a.n * wb;
    return r;
  }
};

// The divisor of var/std: NumPy's max(n - ddof, 0), from the exact length.
__device__ __forceinline__ double dof(long long n, double ddof) {
  const double d = (double)n - ddof;
  return d > 0 ? d : 0.0;
}

// Lane exchange of any trivially copyable accumulator, word by word.
template <class T> __device__ __forceinline__ T shfl_xor(T v, int mask) {
  enum { W = (sizeof(T) + 3) / 4 };
  union {
    T t;
    int w[W];
  } u;
  u.t = v;
#pragma unroll
  for (int k = 0; k < W; ++k) u.w[k] = __shfl_xor_sync(0xffffffffu, u.w[k], mask);
  return u.t;
}

// Reduces across the `width` lanes of each aligned lane group (width a power
// of two <= 32) in a fixed butterfly; every lane of the group gets the result.
template <class Op> __device__ __forceinline__ typename Op::acc group_reduce(typename Op::acc a, int width) {
  for (int m = width >> 1; m > 0; m >>= 1) a = Op::combine(a, shfl_xor(a, m));
  return a;
}

// Reduces across a block of `threads` (a multiple of 32, at most 1024) in a
// fixed tree; thread 0 gets the result. `smem` holds 32 accumulators. Ends
// with a barrier, so smem can be reused at once.
template <class Op>
__device__ __forceinline__ typename Op::acc block_reduce(typename Op::acc a, typename Op::acc* smem, int threads) {
  a = group_reduce<Op>(a, 32);
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31, warps = threads >> 5;
  if (lane == 0) smem[warp] = a;
  __syncthreads();
  if (warp == 0) {
    a = lane < warps ? smem[lane] : Op::identity();
    a = group_reduce<Op>(a, 32);
  }
  __syncthreads();
  return a;
}

// A load that bypasses L1: partials written by other blocks of this launch.
template <class T> __device__ __forceinline__ T load_cg(const T* p) {
  enum { W = (sizeof(T) + 3) / 4 };
  union {
    T t;
    int w[W];
    unsigned char b[sizeof(T)];
  } u;
  if (sizeof(T) % 4 == 0) {
#pragma unroll
    for (int k = 0; k < W; ++k) u.w[k] = __ldcg(reinterpret_cast<const int*>(p) + k);
  } else {
#pragma unroll
    for (int k = 0; k < (int)sizeof(T); ++k) u.b[k] = reinterpret_cast<volatile const unsigned char*>(p)[k];
  }
  return u.t;
}

// N adjacent accumulators by the widest loads that bypass L1 (16, 8 or 4
// bytes): the caller's p lies a whole multiple of N accumulators past a base
// aligned to 256 bytes, so it is aligned to the width chosen. A last block
// that folds thousands of partials one 4-byte load at a time was the tail
// of the columns kernel's run (H200).
template <int W> struct word_ { typedef int type; };
template <> struct word_<8> { typedef int2 type; };
template <> struct word_<16> { typedef int4 type; };
template <class T, int N> __device__ __forceinline__ void load_cg_n(const T* p, T (&out)[N]) {
  enum { BYTES = N * (int)sizeof(T), W = BYTES % 16 == 0 ? 16 : BYTES % 8 == 0 ? 8 : BYTES % 4 == 0 ? 4 : 1 };
  if (W == 1) {
#pragma unroll
    for (int k = 0; k < N; ++k) out[k] = load_cg(p + k);
    return;
  }
  typedef typename cj::red::word_<W>::type word;
  word w[BYTES / W];
#pragma unroll
  for (int k = 0; k < BYTES / W; ++k) w[k] = __ldcg(reinterpret_cast<const word*>(p) + k);
  memcpy(out, w, BYTES);
}

// Folds acc[N] into one accumulator in a fixed pairwise tree (N a power of
// two). A template per level, so that every index is a constant: a loop over
// the levels left the array in local memory (nvcc does not unroll the nest),
// and the accumulators went through L1 on every step.
template <class Op, int N, int S> struct fold_ {
  static __device__ __forceinline__ void run(typename Op::acc (&a)[N]) {
#pragma unroll
    for (int k = 0; k < S; ++k) a[k] = Op::combine(a[k], a[k + S]);
    fold_<Op, N, S / 2>::run(a);
  }
};
template <class Op, int N> struct fold_<Op, N, 0> {
  static __device__ __forceinline__ void run(typename Op::acc (&)[N]) {}
};
template <class Op, int N> __device__ __forceinline__ typename Op::acc fold(typename Op::acc (&a)[N]) {
  fold_<Op, N, N / 2>::run(a);
  return a[0];
}

// The last of `parts` blocks to finish a piece of work: each block stores
// its partial, fences, and takes a ticket; the one that takes ticket
// parts-1 sees every partial and resets the counter for the next launch.
// Integer atomics only: the partials are combined by the last block in index
// order, never by floating-point atomics.
__device__ __forceinline__ bool last_block(unsigned* counter, unsigned parts, int* smem_flag) {
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    const unsigned ticket = atomicAdd(counter, 1u);
    const bool last = ticket == parts - 1;
    if (last) *counter = 0u;
    *smem_flag = last;
  }
  __syncthreads();
  const bool last = *smem_flag != 0;
  if (last) __threadfence();
  return last;
}

}  // namespace red
}  // namespace cj

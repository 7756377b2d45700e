// ---- int_ops.cuh: NumPy's integer arithmetic (the integer loops of src/lang/ops.def) ----
// Wrapping arithmetic computes in the unsigned type, so no signed overflow is
// ever undefined; division by zero gives 0.
namespace cj {

// int_t<T>::type is T for the integer types alone, so these overloads leave
// bool, the floats (math.cuh) and complex (complex.cuh) to theirs.
template <class T> struct int_t {};
template <> struct int_t<cj_i8> { typedef cj_i8 type; };
template <> struct int_t<cj_i16> { typedef cj_i16 type; };
template <> struct int_t<cj_i32> { typedef cj_i32 type; };
template <> struct int_t<cj_i64> { typedef cj_i64 type; };
template <> struct int_t<cj_u8> { typedef cj_u8 type; };
template <> struct int_t<cj_u16> { typedef cj_u16 type; };
template <> struct int_t<cj_u32> { typedef cj_u32 type; };
template <> struct int_t<cj_u64> { typedef cj_u64 type; };

template <class T> struct uint_of;
template <> struct uint_of<cj_i8> { typedef cj_u8 type; };
template <> struct uint_of<cj_i16> { typedef cj_u16 type; };
template <> struct uint_of<cj_i32> { typedef cj_u32 type; };
template <> struct uint_of<cj_i64> { typedef cj_u64 type; };
template <> struct uint_of<cj_u8> { typedef cj_u8 type; };
template <> struct uint_of<cj_u16> { typedef cj_u16 type; };
template <> struct uint_of<cj_u32> { typedef cj_u32 type; };
template <> struct uint_of<cj_u64> { typedef cj_u64 type; };
// The type a product of two U is formed in: at least unsigned int, so that
// 16-bit operands are not promoted to (overflowing) int.
template <class U> struct wide_of { typedef cj_u32 type; };
template <> struct wide_of<cj_u64> { typedef cj_u64 type; };

template <class T> struct is_signed_int { static const bool value = false; };
template <> struct is_signed_int<cj_i8> { static const bool value = true; };
template <> struct is_signed_int<cj_i16> { static const bool value = true; };
template <> struct is_signed_int<cj_i32> { static const bool value = true; };
template <> struct is_signed_int<cj_i64> { static const bool value = true; };
template <class T> struct int_min { static const T value = T(0); };
template <> struct int_min<cj_i8> { static const cj_i8 value = -128; };
template <> struct int_min<cj_i16> { static const cj_i16 value = -32768; };
template <> struct int_min<cj_i32> { static const cj_i32 value = -2147483647 - 1; };
template <> struct int_min<cj_i64> { static const cj_i64 value = -9223372036854775807LL - 1; };

template <class T> __host__ __device__ __forceinline__ T wadd(T a, T b) {
  typedef typename uint_of<T>::type U;
  return (T)(U)((U)a + (U)b);
}
template <class T> __host__ __device__ __forceinline__ T wsub(T a, T b) {
  typedef typename uint_of<T>::type U;
  return (T)(U)((U)a - (U)b);
}
template <class T> __host__ __device__ __forceinline__ T wmul(T a, T b) {
  typedef typename uint_of<T>::type U;
  typedef typename wide_of<U>::type W;
  return (T)(U)((W)(U)a * (W)(U)b);
}
template <class T> __host__ __device__ __forceinline__ T wneg(T a) { return wsub(T(0), a); }
template <class T> __host__ __device__ __forceinline__ T isquare(T a) { return wmul(a, a); }
template <class T> __host__ __device__ __forceinline__ T iabs(T a) { return neg_(a) ? wneg(a) : a; }

template <class T> __host__ __device__ __forceinline__ T ifloordiv(T a, T b) {
  if (b == T(0)) return T(0);
  if (is_signed_int<T>::value) {
    if (a == int_min<T>::value && b == T(-1)) return a;  // wraps, as NumPy
    T q = (T)(a / b);
    if ((a % b != T(0)) && (neg_(a) != neg_(b))) --q;
    return q;
  }
  return (T)(a / b);
}
template <class T> __host__ __device__ __forceinline__ T iremainder(T a, T b) {
  if (b == T(0)) return T(0);
  if (is_signed_int<T>::value) {
    if (b == T(-1)) return T(0);
    T r = (T)(a % b);
    if (r != T(0) && (neg_(r) != neg_(b))) r = (T)(r + b);
    return r;
  }
  return (T)(a % b);
}
template <class T> __host__ __device__ __forceinline__ T ifmod(T a, T b) {
  if (b == T(0)) return T(0);
  if (is_signed_int<T>::value && b == T(-1)) return T(0);
  return (T)(a % b);
}
// NumPy raises for a negative exponent, and so does cujit (checks.cuh's
// nonneg_exponent, the CPU evaluator); the value computed meanwhile is the
// truncated 1/a**-b: 1 for a == 1, +-1 for a == -1, else 0.
template <class T> __host__ __device__ __forceinline__ T ipow(T a, T b) {
  if (neg_(b)) {
    if (a == T(1)) return T(1);
    if (a == T(-1)) return (b % T(2)) ? T(-1) : T(1);
    return T(0);
  }
  T r = T(1);
  while (b) {
    if (b & T(1)) r = wmul(r, a);
    a = wmul(a, a);
    b = (T)(b >> 1);
  }
  return r;
}
// A count outside [0, width) gives 0 (or -1 for a negative a shifted right).
template <class T> __host__ __device__ __forceinline__ typename int_t<T>::type shl(T a, T b) {
  typedef typename uint_of<T>::type U;
  typedef typename wide_of<U>::type W;
  if ((cj_u64)(cj_i64)b >= sizeof(T) * 8) return T(0);
  return (T)(U)((W)(U)a << b);
}
template <class T> __host__ __device__ __forceinline__ typename int_t<T>::type shr(T a, T b) {
  if ((cj_u64)(cj_i64)b >= sizeof(T) * 8) return neg_(a) ? T(-1) : T(0);
  return (T)(a >> b);
}
template <class T> __host__ __device__ __forceinline__ T ireciprocal(T a) { return a == T(0) ? T(0) : (T)(T(1) / a); }

// int64 against uint64: NumPy compares the values exactly, with no common type.
// A negative signed value is below every unsigned one.
__host__ __device__ __forceinline__ bool mlt(cj_i64 a, cj_u64 b) { return a < 0 || (cj_u64)a < b; }
__host__ __device__ __forceinline__ bool mlt(cj_u64 a, cj_i64 b) { return b >= 0 && a < (cj_u64)b; }
__host__ __device__ __forceinline__ bool meq(cj_i64 a, cj_u64 b) { return a >= 0 && (cj_u64)a == b; }
__host__ __device__ __forceinline__ bool meq(cj_u64 a, cj_i64 b) { return b >= 0 && a == (cj_u64)b; }
template <class A, class B> __host__ __device__ __forceinline__ bool cmp_lt(A a, B b) { return mlt(a, b); }
template <class A, class B> __host__ __device__ __forceinline__ bool cmp_gt(A a, B b) { return mlt(b, a); }
template <class A, class B> __host__ __device__ __forceinline__ bool cmp_le(A a, B b) { return mlt(a, b) || meq(a, b); }
template <class A, class B> __host__ __device__ __forceinline__ bool cmp_ge(A a, B b) { return mlt(b, a) || meq(a, b); }
template <class A, class B> __host__ __device__ __forceinline__ bool cmp_eq(A a, B b) { return meq(a, b); }
template <class A, class B> __host__ __device__ __forceinline__ bool cmp_ne(A a, B b) { return !meq(a, b); }


// ---- the integer loops of src/lang/ops.def's operations ----
#define CJ_INT1(name, expr) \
  template <class T> __host__ __device__ __forceinline__ typename int_t<T>::type name(T a) { return expr; }
#define CJ_INT2(name, expr) \
  template <class T> __host__ __device__ __forceinline__ typename int_t<T>::type name(T a, T b) { return expr; }
CJ_INT2(add, wadd(a, b))
CJ_INT2(sub, wsub(a, b))
CJ_INT2(mul, wmul(a, b))
CJ_INT2(remainder, iremainder(a, b))
CJ_INT2(floor_divide, ifloordiv(a, b))
CJ_INT2(fmod, ifmod(a, b))
CJ_INT2(power, ipow(a, b))
CJ_INT2(bit_and, (T)(a & b))
CJ_INT2(bit_or, (T)(a | b))
CJ_INT2(bit_xor, (T)(a ^ b))
CJ_INT1(neg, wneg(a))
CJ_INT1(bit_not, (T)(~a))
CJ_INT1(square, isquare(a))
CJ_INT1(reciprocal, ireciprocal(a))
CJ_INT1(absolute, iabs(a))
CJ_INT1(floor, a)
CJ_INT1(ceil, a)
CJ_INT1(trunc, a)
CJ_INT1(rint, a)
#undef CJ_INT1
#undef CJ_INT2

}  // namespace cj

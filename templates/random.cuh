// ---- random.cuh: the array generators' element values (zeros ... randn) ----
// Compiled into the GPU fill kernels (generate.cu) and, as host C++, into the
// host fill (src/cpu/generate_host.cpp), so a generator gives the same bits on the
// CPU and on every GPU: element k depends on k and the seed alone (a
// counter-based generator, no state carried from one element to the next),
// and the arithmetic is integer operations and correctly rounded IEEE
// operations (+, *, /, sqrt) that never fuse into an FMA. Hence the own log
// and sin/cos below: the device's and the host library's differ in the last bit.
namespace cj {
namespace gen {

// Element types as stored: 16-bit floats and complex numbers as plain structs
// with the layout of numpy's (and of cujit's host types).
struct h16 { cj_u16 bits; };
struct b16 { cj_u16 bits; };
struct alignas(8) c64 { float re, im; };
struct alignas(16) c128 { double re, im; };

// A generator's arguments, passed by value to the kernel: the same struct on
// both sides of the launch, so every member has a fixed size.
struct params {
  cj_u64 n;          // elements to make
  cj_u64 first;      // the index of the first of them in the whole array
  cj_u64 seed;       // rand, randn: Philox's key
  cj_u64 last;       // linspace: the index that takes `stop` exactly (else ~0)
  double start, step, stop;  // arange (0, 1), linspace
  cj_u64 pattern[2]; // full, ones, zeros: the element's bytes
};

#ifdef __CUDA_ARCH__
__device__ __forceinline__ double dmul(double a, double b) { return __dmul_rn(a, b); }
__device__ __forceinline__ double dadd(double a, double b) { return __dadd_rn(a, b); }
__device__ __forceinline__ double ddiv(double a, double b) { return __ddiv_rn(a, b); }
__device__ __forceinline__ double dsqrt(double a) { return __dsqrt_rn(a); }
__device__ __forceinline__ cj_u64 dbits(double a) { return (cj_u64)__double_as_longlong(a); }
__device__ __forceinline__ double dfrom(cj_u64 b) { return __longlong_as_double((long long)b); }
__device__ __forceinline__ cj_u32 fbits(float a) { return __float_as_uint(a); }
__device__ __forceinline__ float ffrom(cj_u32 b) { return __uint_as_float(b); }
#else
// The host file is compiled with -ffp-contract=off: these stay separate roundings.
inline double dmul(double a, double b) { return a * b; }
inline double dadd(double a, double b) { return a + b; }
inline double ddiv(double a, double b) { return a / b; }
inline double dsqrt(double a) { return __builtin_sqrt(a); }
inline cj_u64 dbits(double a) { cj_u64 b; __builtin_memcpy(&b, &a, 8); return b; }
inline double dfrom(cj_u64 b) { double a; __builtin_memcpy(&a, &b, 8); return a; }
inline cj_u32 fbits(float a) { cj_u32 b; __builtin_memcpy(&b, &a, 4); return b; }
inline float ffrom(cj_u32 b) { float a; __builtin_memcpy(&a, &b, 4); return a; }
#endif

// ---------------------------------------------------------------- Philox4x32-10
// Salmon, Moraes, Dror, Shaw, "Parallel random numbers: as easy as 1, 2, 3"
// (SC 2011), with Random123's constants; checked against its known-answer
// vectors (tests/unit/test_generate.cpp).
struct u32x4 { cj_u32 v[4]; };
__host__ __device__ __forceinline__ u32x4 philox4x32_10(u32x4 c, cj_u32 k0, cj_u32 k1) {
  for (int r = 0; r < 10; ++r) {
    if (r) {
      k0 += 0x9E3779B9u;
      k1 += 0xBB67AE85u;
    }
    const cj_u64 p0 = (cj_u64)0xD2511F53u * c.v[0];
    const cj_u64 p1 = (cj_u64)0xCD9E8D57u * c.v[2];
    u32x4 n;
    n.v[0] = (cj_u32)(p1 >> 32) ^ c.v[1] ^ k0;
    n.v[1] = (cj_u32)p1;
    n.v[2] = (cj_u32)(p0 >> 32) ^ c.v[3] ^ k1;
    n.v[3] = (cj_u32)p0;
    c = n;
  }
  return c;
}
// The 128 random bits of element k: the counter is the index, the key the seed.
__host__ __device__ __forceinline__ u32x4 bits_at(cj_u64 k, cj_u64 seed) {
  u32x4 c = {{(cj_u32)k, (cj_u32)(k >> 32), 0u, 0u}};
  return philox4x32_10(c, (cj_u32)seed, (cj_u32)(seed >> 32));
}
__host__ __device__ __forceinline__ cj_u64 join(cj_u32 lo, cj_u32 hi) { return ((cj_u64)hi << 32) | lo; }

// Uniform on [0, 1) with every value a multiple of 2^-53 (2^-24 for float):
// the top bits scaled by a power of two, exact, so no rounding reaches 1.
__host__ __device__ __forceinline__ double u01(cj_u64 b) { return (double)(b >> 11) * 1.1102230246251565e-16; }
__host__ __device__ __forceinline__ float u01f(cj_u32 b) { return (float)(b >> 8) * 5.9604644775390625e-08f; }

// ---------------------------------------------------------------- own log, sin, cos
// log(x) for a positive normal x, to about one ulp: x = m 2^e with m in
// [sqrt(1/2), sqrt(2)), log m = 2 atanh(s), s = (m-1)/(m+1), |s| < 0.172,
// whose series reaches 2^-56 by s^23.
__host__ __device__ __forceinline__ double log_pos(double x) {
  const cj_u64 b = dbits(x);
  int e = (int)((b >> 52) & 0x7ff) - 1023;
  double m = dfrom((b & 0x000fffffffffffffull) | 0x3ff0000000000000ull);
  if (m > 1.4142135623730951) {
    m = dmul(m, 0.5);
    e += 1;
  }
  const double s = ddiv(dadd(m, -1.0), dadd(m, 1.0));
  const double z = dmul(s, s);
  double p = 0.043478260869565216;  // 1/23
  p = dadd(dmul(p, z), 0.047619047619047616);
  p = dadd(dmul(p, z), 0.05263157894736842);
  p = dadd(dmul(p, z), 0.058823529411764705);
  p = dadd(dmul(p, z), 0.06666666666666667);
  p = dadd(dmul(p, z), 0.07692307692307693);
  p = dadd(dmul(p, z), 0.09090909090909091);
  p = dadd(dmul(p, z), 0.1111111111111111);
  p = dadd(dmul(p, z), 0.14285714285714285);
  p = dadd(dmul(p, z), 0.2);
  p = dadd(dmul(p, z), 0.3333333333333333);
  // 2s + 2s z p, then e ln2 split in two so that e ln2_hi is exact.
  const double two_s = dmul(2.0, s);
  const double r = dadd(two_s, dmul(two_s, dmul(z, p)));
  const double de = (double)e;
  return dadd(dmul(de, 0.6931471803691238), dadd(dmul(de, 1.9082149292705877e-10), r));
}

// sin and cos of 2 pi v for v in [0, 1): v*4 = j + f exactly, f in [-1/2, 1/2),
// x = f pi/2 in [-pi/4, pi/4], Taylor series to x^19 and x^20 (< 2^-60 there),
// then the quadrant j turns (sin x, cos x).
__host__ __device__ __forceinline__ void sincos_2pi(double v, double* s_out, double* c_out) {
  const double t = dmul(v, 4.0);
  int j = (int)t;
  double f = dadd(t, -(double)j);
  if (f >= 0.5) {
    f = dadd(f, -1.0);
    j += 1;
  }
  const double x = dmul(f, 1.5707963267948966);
  const double z = dmul(x, x);
  double sp = -8.22063524662433e-18;
  sp = dadd(dmul(sp, z), 2.8114572543455206e-15);
  sp = dadd(dmul(sp, z), -7.647163731819816e-13);
  sp = dadd(dmul(sp, z), 1.6059043836821613e-10);
  sp = dadd(dmul(sp, z), -2.505210838544172e-08);
  sp = dadd(dmul(sp, z), 2.7557319223985893e-06);
  sp = dadd(dmul(sp, z), -0.0001984126984126984);
  sp = dadd(dmul(sp, z), 0.008333333333333333);
  sp = dadd(dmul(sp, z), -0.16666666666666666);
  const double s = dadd(x, dmul(x, dmul(z, sp)));
  double cp = 4.110317623312165e-19;
  cp = dadd(dmul(cp, z), -1.5619206968586225e-16);
  cp = dadd(dmul(cp, z), 4.779477332387385e-14);
  cp = dadd(dmul(cp, z), -1.1470745597729725e-11);
  cp = dadd(dmul(cp, z), 2.08767569878681e-09);
  cp = dadd(dmul(cp, z), -2.755731922398589e-07);
  cp = dadd(dmul(cp, z), 2.48015873015873e-05);
  cp = dadd(dmul(cp, z), -0.001388888888888889);
  cp = dadd(dmul(cp, z), 0.041666666666666664);
  cp = dadd(dmul(cp, z), -0.5);
  const double c = dadd(1.0, dmul(z, cp));
  switch (j & 3) {
    case 0: *s_out = s; *c_out = c; break;
    case 1: *s_out = c; *c_out = -s; break;
    case 2: *s_out = -s; *c_out = -c; break;
    default: *s_out = -c; *c_out = s; break;
  }
}

// Two independent standard normals from element k's bits (Box-Muller):
// u1 in (0, 1] so that its log is finite, u2 in [0, 1).
__host__ __device__ __forceinline__ void normal_pair(cj_u64 k, cj_u64 seed, double* a, double* b) {
  const u32x4 w = bits_at(k, seed);
  const double u1 = dadd(u01(join(w.v[0], w.v[1])), 1.1102230246251565e-16);
  const double u2 = u01(join(w.v[2], w.v[3]));
  const double r = dsqrt(dmul(-2.0, log_pos(u1)));
  double s, c;
  sincos_2pi(u2, &s, &c);
  *a = dmul(r, c);
  *b = dmul(r, s);
}

// ---------------------------------------------------------------- conversions
// double -> float rounding to odd (the nearest float with an odd last bit
// when inexact), so that rounding that to 16 bits is the correctly rounded
// double -> 16-bit result: the language's cast (src/scalar.hpp), on bits.
__host__ __device__ __forceinline__ float to_float_odd(double d) {
  const float f = (float)d;
  const cj_u32 fb = fbits(f);
  if ((double)f == d || (fb & 0x7f800000u) == 0x7f800000u || (fb & 1u)) return f;
  const bool up = ((double)f < d) == ((fb >> 31) == 0u);  // away from zero
  return ffrom(up ? fb + 1u : fb - 1u);
}
// float -> float16, round to nearest even; NaN keeps its sign and top payload
// (src/half.hpp's float_to_half, on the device too).
__host__ __device__ __forceinline__ cj_u16 f2h_bits(float f) {
  const cj_u32 x = fbits(f);
  const cj_u16 sign = (cj_u16)((x >> 16) & 0x8000u);
  const cj_u32 ax = x & 0x7fffffffu;
  if (ax >= 0x7f800000u) return (cj_u16)(sign | (ax > 0x7f800000u ? (0x7e00u | ((ax >> 13) & 0x3ffu)) : 0x7c00u));
  if (ax >= 0x477ff000u) return (cj_u16)(sign | 0x7c00u);
  if (ax < 0x38800000u) {
    if (ax < 0x33000000u) return sign;
    const cj_u32 e = ax >> 23, m = (ax & 0x7fffffu) | 0x800000u, shift = 126 - e;
    cj_u32 q = m >> shift;
    const cj_u32 rem = m & ((1u << shift) - 1), half = 1u << (shift - 1);
    if (rem > half || (rem == half && (q & 1u))) ++q;
    return (cj_u16)(sign | q);
  }
  cj_u32 q = ax - 0x38000000u;
  const cj_u32 rem = q & 0x1fffu;
  q >>= 13;
  if (rem > 0x1000u || (rem == 0x1000u && (q & 1u))) ++q;
  return (cj_u16)(sign | q);
}
__host__ __device__ __forceinline__ cj_u16 f2b_bits(float f) {
  cj_u32 x = fbits(f);
  if ((x & 0x7fffffffu) > 0x7f800000u) return (cj_u16)((x >> 16) | 0x40u);
  x += 0x7fffu + ((x >> 16) & 1u);
  return (cj_u16)(x >> 16);
}

// A double as element type T, by the language's cast: ints truncate and
// saturate (NaN gives 0), bool is "not zero", complex takes it as the real part.
template <class T> struct conv;
template <class I, long long LO, unsigned long long HI> struct conv_int {
  static __host__ __device__ __forceinline__ I f(double d) {
    if (d != d) return (I)0;
    if (d <= (double)LO) return (I)LO;
    if (d >= (double)HI) return (I)HI;
    return (I)d;
  }
};
template <> struct conv<bool> { static __host__ __device__ __forceinline__ bool f(double d) { return d != 0.0; } };
template <> struct conv<cj_i8> : conv_int<cj_i8, -128, 127> {};
template <> struct conv<cj_i16> : conv_int<cj_i16, -32768, 32767> {};
template <> struct conv<cj_i32> : conv_int<cj_i32, -2147483647LL - 1, 2147483647ULL> {};
template <> struct conv<cj_i64> : conv_int<cj_i64, -9223372036854775807LL - 1, 9223372036854775807ULL> {};
template <> struct conv<cj_u8> : conv_int<cj_u8, 0, 255> {};
template <> struct conv<cj_u16> : conv_int<cj_u16, 0, 65535> {};
template <> struct conv<cj_u32> : conv_int<cj_u32, 0, 4294967295ULL> {};
template <> struct conv<cj_u64> : conv_int<cj_u64, 0, 18446744073709551615ULL> {};
template <> struct conv<h16> { static __host__ __device__ __forceinline__ h16 f(double d) { h16 r = {f2h_bits(to_float_odd(d))}; return r; } };
template <> struct conv<b16> { static __host__ __device__ __forceinline__ b16 f(double d) { b16 r = {f2b_bits(to_float_odd(d))}; return r; } };
template <> struct conv<float> { static __host__ __device__ __forceinline__ float f(double d) { return (float)d; } };
template <> struct conv<double> { static __host__ __device__ __forceinline__ double f(double d) { return d; } };
template <> struct conv<c64> { static __host__ __device__ __forceinline__ c64 f(double d) { c64 r = {(float)d, 0.0f}; return r; } };
template <> struct conv<c128> { static __host__ __device__ __forceinline__ c128 f(double d) { c128 r = {d, 0.0}; return r; } };

// ---------------------------------------------------------------- the generators
// rand: uniform on [0, 1) for floats (each part of a complex), 0 or 1 for
// bool, the whole range for 8- to 32-bit ints, [-2^52, 2^52) for int64 and
// [0, 2^53) for uint64 (the values a double holds exactly).
template <class T> struct uniform {  // 8- to 32-bit ints: the low bits, so every value occurs
  static __host__ __device__ __forceinline__ T f(const u32x4& w) { return (T)w.v[0]; }
};
template <> struct uniform<bool> { static __host__ __device__ __forceinline__ bool f(const u32x4& w) { return (w.v[0] >> 31) != 0u; } };
template <> struct uniform<cj_i64> {
  static __host__ __device__ __forceinline__ cj_i64 f(const u32x4& w) { return (cj_i64)join(w.v[0], w.v[1]) >> 11; }
};
template <> struct uniform<cj_u64> {
  static __host__ __device__ __forceinline__ cj_u64 f(const u32x4& w) { return join(w.v[0], w.v[1]) >> 11; }
};
// 16-bit floats: multiples of 2^-11 (float16's precision at 1) and 2^-8
// (bfloat16's), each held exactly.
template <> struct uniform<h16> {
  static __host__ __device__ __forceinline__ h16 f(const u32x4& w) { h16 r = {f2h_bits((float)(w.v[0] >> 21) * 4.8828125e-04f)}; return r; }
};
template <> struct uniform<b16> {
  static __host__ __device__ __forceinline__ b16 f(const u32x4& w) { b16 r = {(cj_u16)(fbits((float)(w.v[0] >> 24) * 3.90625e-03f) >> 16)}; return r; }
};
template <> struct uniform<float> { static __host__ __device__ __forceinline__ float f(const u32x4& w) { return u01f(w.v[0]); } };
template <> struct uniform<double> { static __host__ __device__ __forceinline__ double f(const u32x4& w) { return u01(join(w.v[0], w.v[1])); } };
template <> struct uniform<c64> {
  static __host__ __device__ __forceinline__ c64 f(const u32x4& w) { c64 r = {u01f(w.v[0]), u01f(w.v[1])}; return r; }
};
template <> struct uniform<c128> {
  static __host__ __device__ __forceinline__ c128 f(const u32x4& w) { c128 r = {u01(join(w.v[0], w.v[1])), u01(join(w.v[2], w.v[3]))}; return r; }
};

// randn: a standard normal rounded to T (floats); complex: both parts standard normals.
template <class T> struct normal {
  static __host__ __device__ __forceinline__ T f(cj_u64 k, cj_u64 seed) {
    double a, b;
    normal_pair(k, seed, &a, &b);
    return conv<T>::f(a);
  }
};
template <> struct normal<c64> {
  static __host__ __device__ __forceinline__ c64 f(cj_u64 k, cj_u64 seed) {
    double a, b;
    normal_pair(k, seed, &a, &b);
    c64 r = {(float)a, (float)b};
    return r;
  }
};
template <> struct normal<c128> {
  static __host__ __device__ __forceinline__ c128 f(cj_u64 k, cj_u64 seed) {
    double a, b;
    normal_pair(k, seed, &a, &b);
    c128 r = {a, b};
    return r;
  }
};

// full, ones, zeros: the element's bytes, made once on the host by the
// language's cast, stored as an unsigned integer of the element's size.
struct alignas(16) u64x2 { cj_u64 lo, hi; };
template <class T> struct pat {  // cj_u8 ... cj_u64
  static __host__ __device__ __forceinline__ T f(const params& p) { return (T)p.pattern[0]; }
};
template <> struct pat<u64x2> {
  static __host__ __device__ __forceinline__ u64x2 f(const params& p) { u64x2 r = {p.pattern[0], p.pattern[1]}; return r; }
};

// The value of element k for each generator.
struct rand_ {
  template <class T> static __host__ __device__ __forceinline__ T at(cj_u64 k, const params& p) { return uniform<T>::f(bits_at(k, p.seed)); }
};
struct randn_ {
  template <class T> static __host__ __device__ __forceinline__ T at(cj_u64 k, const params& p) { return normal<T>::f(k, p.seed); }
};
// arange (start 0, step 1) and linspace: start + k*step, `stop` exactly at `last`.
struct ramp_ {
  template <class T> static __host__ __device__ __forceinline__ T at(cj_u64 k, const params& p) {
    return conv<T>::f(k == p.last ? p.stop : dadd(p.start, dmul((double)k, p.step)));
  }
};
struct pattern_ {
  template <class T> static __host__ __device__ __forceinline__ T at(cj_u64, const params& p) { return pat<T>::f(p); }
};

}  // namespace gen
}  // namespace cj

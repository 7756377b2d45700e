// The operations' loops for the CPU evaluator: for every row of ops.def and
// compute type, a loop applying its template function (templates/*.cuh,
// compiled as host C++ by ops_host.hpp) over a chunk, or SLEEF's vector
// function where vector_math.def lists one. op_loop picks one once
// per node of the program; nothing here looks at a name.
//
// The loops are plain C++ that the compiler vectorizes; Highway compiles this
// file once per instruction set (foreach_target.h re-includes it under each
// target's `#pragma GCC target`) and picks the best the CPU has at run time
// (docs/architecture.md says why Highway). Every target computes the same
// bits: no fast-math and no FMA contraction (CMakeLists.txt), and the
// operations are exact or call the same scalar functions.
#include <cmath>
#include <string_view>
#include <type_traits>

#include "lang/check.hpp"
#include "cpu/eval_loops.hpp"
#include "core/fail.hpp"
#include "core/ops_host.hpp"
#include "cpu/vector_math.hpp"

#include "cpu/hwy_targets.hpp"  // the targets built
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/eval_ops.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per target
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace cujit::cpu {
namespace HWY_NAMESPACE {
namespace {

// The templates' compute types: cj_i64 is long long where std::int64_t is
// long, and complex values are cj::c64/c128 (std::complex's layout).
template <class F> Loop visit_compute(DType t, F&& f) {
  if (is_half(t)) return nullptr;  // 16-bit floats compute in float32
  switch (t) {
#define DTYPE(Id, name, size, Host, Compute, ...) \
  case DType::Id:                                 \
    return f(Compute{});
#include "core/dtypes.def"
#undef DTYPE
  }
  return nullptr;
}

template <class R> constexpr DType dtype_of() {
#define DTYPE(Id, name, size, Host, Compute, ...) \
  if constexpr (!is_half(DType::Id) && std::is_same_v<R, Compute>) return DType::Id;
#include "core/dtypes.def"
#undef DTYPE
  return DType::Complex128;
}

// The loops over one chunk. Registers never alias within one instruction (the
// evaluator gives an output a buffer none of its operands use), hence restrict,
// which lets the compiler vectorize them. two_u and three_u take their last
// operands (a literal, a scalar: `x*y + 5`, `x > 0.5`, `clip(x, 0.5, 1.5)`) as
// one value, which the planner knows every element of their registers holds:
// one stream read instead of two or three, and the operand's tests (clip's
// NaN checks of its bounds) hoisted out of the loop.
#define CJ_LOOPS(ATTR)                                                                  \
  ATTR static void one(const Instr& in, const Chunk& c) {                               \
    using R = std::invoke_result_t<F, T, Tag...>;                                       \
    const T* __restrict x = static_cast<const T*>(c.reg[in.arg[0]]);                    \
    R* __restrict y = static_cast<R*>(c.reg[in.out]);                                   \
    for (std::size_t k = 0; k < c.n; ++k) y[k] = F{}(x[k], Tag{}...);                   \
  }                                                                                     \
  ATTR static void two(const Instr& in, const Chunk& c) {                               \
    using R = std::invoke_result_t<F, T, T, Tag...>;                                    \
    const T* __restrict x = static_cast<const T*>(c.reg[in.arg[0]]);                    \
    const T* __restrict z = static_cast<const T*>(c.reg[in.arg[1]]);                    \
    R* __restrict y = static_cast<R*>(c.reg[in.out]);                                   \
    for (std::size_t k = 0; k < c.n; ++k) y[k] = F{}(x[k], z[k], Tag{}...);             \
  }                                                                                     \
  ATTR static void three(const Instr& in, const Chunk& c) {                             \
    using R = std::invoke_result_t<F, T, T, T, Tag...>;                                 \
    const T* __restrict x = static_cast<const T*>(c.reg[in.arg[0]]);                    \
    const T* __restrict z = static_cast<const T*>(c.reg[in.arg[1]]);                    \
    const T* __restrict w = static_cast<const T*>(c.reg[in.arg[2]]);                    \
    R* __restrict y = static_cast<R*>(c.reg[in.out]);                                   \
    for (std::size_t k = 0; k < c.n; ++k) y[k] = F{}(x[k], z[k], w[k], Tag{}...);       \
  }                                                                                     \
  ATTR static void two_u(const Instr& in, const Chunk& c) {                             \
    using R = std::invoke_result_t<F, T, T, Tag...>;                                    \
    const T* __restrict x = static_cast<const T*>(c.reg[in.arg[0]]);                    \
    const T z = *static_cast<const T*>(c.reg[in.arg[1]]);                              \
    R* __restrict y = static_cast<R*>(c.reg[in.out]);                                   \
    for (std::size_t k = 0; k < c.n; ++k) y[k] = F{}(x[k], z, Tag{}...);                \
  }                                                                                     \
  ATTR static void three_u(const Instr& in, const Chunk& c) {                           \
    using R = std::invoke_result_t<F, T, T, T, Tag...>;                                 \
    const T* __restrict x = static_cast<const T*>(c.reg[in.arg[0]]);                    \
    const T z = *static_cast<const T*>(c.reg[in.arg[1]]);                              \
    const T w = *static_cast<const T*>(c.reg[in.arg[2]]);                              \
    R* __restrict y = static_cast<R*>(c.reg[in.out]);                                   \
    for (std::size_t k = 0; k < c.n; ++k) y[k] = F{}(x[k], z, w, Tag{}...);             \
  }
template <class F, class T, class... Tag> struct Loops {
  CJ_LOOPS()
};
// Complex operands stay scalar: GCC 12's vectorizer fuses a complex product
// into FMA instructions (vfmaddsub) even with -ffp-contract=off, which would
// make the AVX2 and AVX-512 results differ from the baseline's and NumPy's.
template <class F, class P, class... Tag> struct Loops<F, cj::complex<P>, Tag...> {
  using T = cj::complex<P>;
  CJ_LOOPS(__attribute__((optimize("no-tree-vectorize"))))
};
#undef CJ_LOOPS

template <class F, class T, class... Tag> Loop pick(int arity, unsigned& uniform, DType& result) {
  const unsigned given = uniform;
  uniform = 0;
  if (arity == 1) {
    if constexpr (std::is_invocable_v<F, T, Tag...>) {
      result = dtype_of<std::invoke_result_t<F, T, Tag...>>();
      return &Loops<F, T, Tag...>::one;
    }
  } else if (arity == 2) {
    if constexpr (std::is_invocable_v<F, T, T, Tag...>) {
      result = dtype_of<std::invoke_result_t<F, T, T, Tag...>>();
      if (given & 2) {
        uniform = 2;
        return &Loops<F, T, Tag...>::two_u;
      }
      return &Loops<F, T, Tag...>::two;
    }
  } else if (arity == 3) {
    if constexpr (std::is_invocable_v<F, T, T, T, Tag...>) {
      result = dtype_of<std::invoke_result_t<F, T, T, T, Tag...>>();
      if ((given & 6) == 6) {
        uniform = 6;
        return &Loops<F, T, Tag...>::three_u;
      }
      return &Loops<F, T, Tag...>::three;
    }
  }
  return nullptr;
}

// Operations with loops of their own for 16-bit floats (flag h) get the tag.
// (`tagged` is the flag, known at compile time, so no other row instantiates them.)
template <class F, class T, bool tagged> Loop pick_for(DType op_type, int arity, unsigned& uniform, DType& result) {
  if constexpr (tagged && std::is_same_v<T, float>) {
    if (op_type == DType::Float16) return pick<F, T, cj::f16_tag>(arity, uniform, result);
    if (op_type == DType::BFloat16) return pick<F, T, cj::bf16_tag>(arity, uniform, result);
  }
  return pick<F, T>(arity, uniform, result);
}

constexpr bool has_flag(std::string_view flags, char f) { return flags.find(f) != std::string_view::npos; }

// One function object per row, calling its template function.
#define OP(Id, spelling, alias1, alias2, min_args, max_args, loops, special, flags, impl)  \
  struct Fn##Id {                                                                          \
    template <class... V> auto operator()(V... v) const -> decltype(cj::impl(v...)) {      \
      return cj::impl(v...);                                                               \
    }                                                                                      \
  };
#include "lang/ops.def"

// Registers hold stored elements: 16-bit floats as their bits (the tags stand
// for their dtypes), read as float.
template <class T> struct Stored { using type = T; };
template <> struct Stored<cj::f16_tag> { using type = cj_u16; };
template <> struct Stored<cj::bf16_tag> { using type = cj_u16; };
template <class T> constexpr bool is_tag = std::is_same_v<T, cj::f16_tag> || std::is_same_v<T, cj::bf16_tag>;

template <class From, class To> void convert_one(const Instr& in, const Chunk& c) {
  const auto* __restrict x = static_cast<const typename Stored<From>::type*>(c.reg[in.arg[0]]);
  auto* __restrict y = static_cast<typename Stored<To>::type*>(c.reg[in.out]);
  for (std::size_t k = 0; k < c.n; ++k) {
    auto v = [&] {
      if constexpr (std::is_same_v<From, cj::f16_tag>) return cj::h2f(x[k]);
      else if constexpr (std::is_same_v<From, cj::bf16_tag>) return cj::b2f(x[k]);
      else return x[k];
    }();
    if constexpr (is_tag<To>) y[k] = cj::conv_<To, decltype(v)>::bits(v);
    else y[k] = cj::cast<To>(v);
  }
}

template <class F> Loop visit_stored(DType t, F&& f) {
  if (t == DType::Float16) return f(cj::f16_tag{});
  if (t == DType::BFloat16) return f(cj::bf16_tag{});
  return visit_compute(t, f);
}

// Integer `%` and floor_divide of 8-, 16- and 32-bit signed and 8- and
// 16-bit unsigned integers when a chunk's divisors are all one value (a
// literal, a scalar: `(a*3 + b) % 7`). The hardware's integer division has no
// vector form, so the quotient comes from a product with the divisor's
// reciprocal in double, truncated to int32: within 2 of floor(a/b) (|a/b| <=
// 2^31 and the product's relative error is 2^-52); the remainder a - q b,
// exact in double, then corrects it, one step at a time, by arithmetic on
// comparisons so that the loop vectorizes (std::floor would not, with
// trapping math). The results are the template functions' (NumPy's: the
// remainder takes the divisor's sign); other chunks, a zero divisor and -1
// (INT_MIN / -1 wraps) take the template function.
template <class T, bool Rem> void uniform_divide(const Instr& in, const Chunk& c) {
  const T* __restrict x = static_cast<const T*>(c.reg[in.arg[0]]);
  const T* __restrict z = static_cast<const T*>(c.reg[in.arg[1]]);
  T* __restrict y = static_cast<T*>(c.reg[in.out]);
  if (c.n == 0) return;
  const T b0 = z[0];
  T differ = 0;
  for (std::size_t k = 0; k < c.n; ++k) differ = static_cast<T>(differ | (z[k] ^ b0));
  if (differ != 0 || b0 == 0 || (std::is_signed_v<T> && b0 == static_cast<T>(-1))) {
    for (std::size_t k = 0; k < c.n; ++k) y[k] = Rem ? cj::remainder(x[k], z[k]) : cj::floor_divide(x[k], z[k]);
    return;
  }
  const double b = static_cast<double>(b0), inv = 1.0 / b;
  auto one = [&](T a, auto positive) {
    const double ad = static_cast<double>(a);
    double q = static_cast<double>(static_cast<std::int32_t>(ad * inv));
    double r = ad - q * b;
    for (int step = 0; step < 2; ++step) {  // into [0, b) for b > 0, (b, 0] for b < 0
      const double low = (positive ? r < 0 : r > 0) ? 1.0 : 0.0;
      const double high = (positive ? r >= b : r <= b) ? 1.0 : 0.0;
      q += high - low;
      r -= (high - low) * b;
    }
    return static_cast<T>(static_cast<std::int32_t>(Rem ? r : q));
  };
  if (b0 > 0) {
    for (std::size_t k = 0; k < c.n; ++k) y[k] = one(x[k], std::true_type{});
  } else {
    for (std::size_t k = 0; k < c.n; ++k) y[k] = one(x[k], std::false_type{});
  }
}

template <class T> Loop divide_loop(Op id) {
  if constexpr (std::is_integral_v<T> && !std::is_same_v<T, bool> &&
                (std::is_signed_v<T> ? sizeof(T) <= 4 : sizeof(T) <= 2)) {
    if (id == Op::Mod || id == Op::Remainder) return &uniform_divide<T, true>;
    if (id == Op::FloorDivide) return &uniform_divide<T, false>;
  }
  return nullptr;
}

// where(c, x, y): a mask blend on integers of the element's width, branch-free
// (random conditions would mispredict a branch) so the loop vectorizes. The
// condition's bytes are read as bytes: GCC 12 leaves a loop that reads bool
// elements scalar (where(x > y, x, y*2) took 9 instructions an element, 79 %
// of its time, on float32).
template <class U> void select_loop(const Instr& in, const Chunk& c) {
  const auto* __restrict cond = static_cast<const std::uint8_t*>(c.reg[in.arg[0]]);
  const U* __restrict x = static_cast<const U*>(c.reg[in.arg[1]]);
  const U* __restrict z = static_cast<const U*>(c.reg[in.arg[2]]);
  U* __restrict y = static_cast<U*>(c.reg[in.out]);
  for (std::size_t k = 0; k < c.n; ++k) {
    const U mask = static_cast<U>(U(0) - static_cast<U>(cond[k] != 0));
    y[k] = static_cast<U>(z[k] ^ ((x[k] ^ z[k]) & mask));
  }
}
struct U128 {
  std::uint64_t lo, hi;
};
template <> void select_loop<U128>(const Instr& in, const Chunk& c) {
  const bool* cond = static_cast<const bool*>(c.reg[in.arg[0]]);
  const auto* x = static_cast<const U128*>(c.reg[in.arg[1]]);
  const auto* z = static_cast<const U128*>(c.reg[in.arg[2]]);
  auto* y = static_cast<U128*>(c.reg[in.out]);
  for (std::size_t k = 0; k < c.n; ++k) y[k] = cond[k] ? x[k] : z[k];
}

}  // namespace

// This target's loops (HWY_DYNAMIC_DISPATCH calls the best the CPU has).
Loop TemplateLoop(const Builtin& b, DType op_type, int arity, unsigned* uniform, DType* result) {
  DType ct = is_half(op_type) ? DType::Float32 : op_type;
  return visit_compute(ct, [&](auto tag) -> Loop {
    using T = decltype(tag);
    if (arity == 2)
      if (Loop d = divide_loop<T>(b.id)) {
        *result = op_type;
        *uniform = 0;
        return d;
      }
    switch (b.id) {
#define OP(Id, spelling, alias1, alias2, min_args, max_args, loops, special, flags, impl) \
  case Op::Id: return pick_for<Fn##Id, T, has_flag(flags, 'h')>(op_type, arity, *uniform, *result);
#include "lang/ops.def"
      default: return nullptr;
    }
  });
}

Loop ConvertLoop(DType from, DType to) {
  return visit_stored(from, [&](auto f) -> Loop {
    return visit_stored(to, [&](auto t) -> Loop { return &convert_one<decltype(f), decltype(t)>; });
  });
}

Loop SelectLoop(std::size_t item) {
  switch (item) {
    case 1: return select_loop<std::uint8_t>;
    case 2: return select_loop<std::uint16_t>;
    case 4: return select_loop<std::uint32_t>;
    case 8: return select_loop<std::uint64_t>;
    default: return select_loop<U128>;
  }
}

std::int64_t TargetBit() { return HWY_TARGET; }

}  // namespace HWY_NAMESPACE
}  // namespace cujit::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace cujit::cpu {

HWY_EXPORT(TemplateLoop);
HWY_EXPORT(ConvertLoop);
HWY_EXPORT(SelectLoop);
HWY_EXPORT(TargetBit);

Loop op_loop(const Builtin& b, DType op_type, int arity, DType& result, unsigned* uniform) {
  if (Loop v = vector_loop(b.id, op_type)) {
    result = op_type;
    if (uniform) *uniform = 0;
    return v;
  }
  return template_loop(b, op_type, arity, result, uniform);
}

Loop template_loop(const Builtin& b, DType op_type, int arity, DType& result, unsigned* uniform) {
  unsigned none = 0;
  return HWY_DYNAMIC_DISPATCH(TemplateLoop)(b, op_type, arity, uniform ? uniform : &none, &result);
}

Loop convert_loop(DType from, DType to) { return HWY_DYNAMIC_DISPATCH(ConvertLoop)(from, to); }

Loop select_loop(std::size_t item) { return HWY_DYNAMIC_DISPATCH(SelectLoop)(item); }

namespace {
struct Target {
  const char* name;
  std::int64_t bit;
};
// Best first. HWY_STATIC_TARGET is what the compiler's flags allow everywhere.
constexpr Target kTargets[] = {{"avx512", HWY_AVX3}, {"avx2", HWY_AVX2}, {"baseline", HWY_STATIC_TARGET}};

// What the CPU has, read once before anything is forced (SupportedTargets()
// answers with the forced set while a test forces one).
std::int64_t cpu_targets_mask() {
  static const std::int64_t mask = hwy::SupportedTargets();
  return mask;
}
}  // namespace

std::vector<std::string> loop_targets() {
  std::vector<std::string> names;
  for (const Target& t : kTargets) names.push_back(t.name);
  return names;
}

bool cpu_has_target(const std::string& name) {
  for (const Target& t : kTargets)
    if (name == t.name) return t.bit == HWY_STATIC_TARGET || (cpu_targets_mask() & t.bit) != 0;
  return false;
}

std::string loop_target() {
  const std::int64_t bit = HWY_DYNAMIC_DISPATCH(TargetBit)();
  for (const Target& t : kTargets)
    if (t.bit == bit) return t.name;
  // Newer Highway (Ubuntu 24.04's 1.0.7) adds AVX-512 targets for newer CPUs
  // (AVX3_ZEN4, ...): better targets have lower bits.
  if (HWY_ARCH_X86 && bit > 0 && bit < HWY_AVX3) return "avx512";
  return hwy::TargetName(bit);
}

void force_loop_target(const std::string& name) {
  cpu_targets_mask();
  if (name.empty()) {
    hwy::SetSupportedTargetsForTest(0);
    return;
  }
  for (const Target& t : kTargets)
    if (name == t.name) {
      if (!cpu_has_target(name)) fail(ErrorCode::Usage, "this CPU cannot run the '{}' loops", name);
      hwy::SetSupportedTargetsForTest(t.bit);
      return;
    }
  fail(ErrorCode::Usage, "unknown CPU loop target '{}' (known: avx512, avx2, baseline)", name);
}

}  // namespace cujit::cpu
#endif  // HWY_ONCE

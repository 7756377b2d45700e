// The CPU reductions' per-target loops: the extremum of a chunk of a real or
// integer type (min, max, and for floats whether a NaN is there, for
// argmin/argmax too) in the widest vectors the CPU has. Highway compiles this file once per
// instruction set, as eval_ops.cpp, and picks at run time; the loops are GCC
// vector extensions of the target's width, so every target takes the same
// selects and gives the same bits. In 16-byte vectors (reduce.cpp's baseline
// code, SSE2), float64 max of 10^6 elements took 0.152 ms on two threads of
// an AVX-512 machine where NumPy's AVX-512 loop took 0.093 on one.
#include "cpu/reduce_loops.hpp"

#include <cstring>
#include <type_traits>

#include "cpu/hwy_targets.hpp"
#undef HWY_TARGET_INCLUDE
#define HWY_TARGET_INCLUDE "cpu/reduce_loops.cpp"
#include <hwy/foreach_target.h>  // re-includes this file once per target
#include <hwy/highway.h>

HWY_BEFORE_NAMESPACE();
namespace cujit::cpu {
namespace HWY_NAMESPACE {
namespace {

constexpr int kChains = 8;  // independent vector selects in flight: one's latency is several cycles

// Vectors of the target's width (HWY_MAX_BYTES: 64, 32 or 16).
template <class V> struct Wide {
  typedef V type __attribute__((vector_size(HWY_MAX_BYTES)));
};

// The extremum of x[0, n) (n >= 1) by the rule `m < v ? v : m` (max) or
// `v < m ? v : m` (min), so a NaN is never taken and of equal values the
// first stays; *nan says whether a NaN is among them.
template <bool Max, class V> V extreme(const V* x, std::int64_t n, bool* nan) {
  using Vec = typename Wide<V>::type;
  using Mask = decltype(Vec{} < Vec{});
  constexpr int L = HWY_MAX_BYTES / sizeof(V);
  V m = x[0];
  bool any = false;
  std::int64_t k = 0;
  if (n >= kChains * L) {
    Vec lane[kChains];
    for (Vec& l : lane)
      for (int j = 0; j < L; ++j) l[j] = x[0];
    Mask bad = {};
    for (; k + kChains * L <= n; k += kChains * L)
      for (int c = 0; c < kChains; ++c) {
        Vec v;
        std::memcpy(&v, x + k + c * L, sizeof v);
        if constexpr (std::is_floating_point_v<V>) bad |= v != v;
        if constexpr (Max) lane[c] = lane[c] < v ? v : lane[c];
        else lane[c] = v < lane[c] ? v : lane[c];
      }
    for (int c = 0; c < kChains; ++c)
      for (int j = 0; j < L; ++j) {
        any |= bad[j] != 0;
        if constexpr (Max) m = m < lane[c][j] ? lane[c][j] : m;
        else m = lane[c][j] < m ? lane[c][j] : m;
      }
  }
  for (; k < n; ++k) {
    const V v = x[k];
    if constexpr (std::is_floating_point_v<V>) any |= v != v;
    if constexpr (Max) m = m < v ? v : m;
    else m = v < m ? v : m;
  }
  *nan = any;
  return m;
}

}  // namespace

#define CJ_EXTREME(T, Name)                                                   \
  T Name(const T* x, std::int64_t n, bool max, bool* nan) {                   \
    return max ? extreme<true>(x, n, nan) : extreme<false>(x, n, nan);        \
  }
CJ_EXTREME_TYPES(CJ_EXTREME)
#undef CJ_EXTREME

}  // namespace HWY_NAMESPACE
}  // namespace cujit::cpu
HWY_AFTER_NAMESPACE();

#if HWY_ONCE
namespace cujit::cpu {

#define CJ_EXTREME(T, Name)                                                          \
  HWY_EXPORT(Name);                                                                  \
  T extreme_value(const T* x, std::int64_t n, bool max, bool& any_nan) {             \
    return HWY_DYNAMIC_DISPATCH(Name)(x, n, max, &any_nan);                          \
  }
CJ_EXTREME_TYPES(CJ_EXTREME)
#undef CJ_EXTREME

}  // namespace cujit::cpu
#endif  // HWY_ONCE

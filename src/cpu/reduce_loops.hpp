// The CPU reductions' loops compiled for each instruction set (Highway's
// dispatch, as the evaluator's loops; force_loop_target forces them too).
#pragma once

#include <cstdint>

namespace cujit::cpu {

// The types with per-target extremum loops: X(type, dispatched function's name).
#define CJ_EXTREME_TYPES(X)                                                                        \
  X(float, ExtremeF32) X(double, ExtremeF64) X(std::int8_t, ExtremeI8) X(std::uint8_t, ExtremeU8) \
  X(std::int16_t, ExtremeI16) X(std::uint16_t, ExtremeU16) X(std::int32_t, ExtremeI32)             \
  X(std::uint32_t, ExtremeU32) X(std::int64_t, ExtremeI64) X(std::uint64_t, ExtremeU64)

// The extremum of x[0, n), n >= 1: max by `m < v ? v : m`, min by
// `v < m ? v : m` (NaN never taken; of equal values the first), and whether a
// NaN is among them (the caller finds the first).
#define CJ_EXTREME(T, Name) T extreme_value(const T* x, std::int64_t n, bool max, bool& any_nan);
CJ_EXTREME_TYPES(CJ_EXTREME)
#undef CJ_EXTREME

}  // namespace cujit::cpu

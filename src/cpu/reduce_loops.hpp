// The CPU reductions' loops compiled for each instruction set (Highway's
// dispatch, as the evaluator's loops; force_loop_target forces them too).
#pragma once

#include <cstdint>

namespace cujit::cpu {

// The extremum of x[0, n), n >= 1: max by `m < v ? v : m`, min by
// `v < m ? v : m` (NaN never taken; of equal values the first), and whether a
// NaN is among them (the caller finds the first).
float extreme_value(const float* x, std::int64_t n, bool max, bool& any_nan);
double extreme_value(const double* x, std::int64_t n, bool max, bool& any_nan);

}  // namespace cujit::cpu

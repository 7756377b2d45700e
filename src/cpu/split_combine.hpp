// The host's half of a reduction over the split axis (plan/split_reduce.hpp):
// each slice's partials, downloaded, combined into the step's result one
// slice after another in slice order (the devices' order), so the same
// inputs give the same bits on every run, whatever finished first.
//
//   sums, products (and nan- versions): added or multiplied in the CPU's
//     accumulators (integers in 64 bits, wrapping as NumPy's), cast once;
//   mean: the combined sum over the whole count, as the CPU's loops divide;
//   min, max: the first NaN wins (the nan- versions skip NaN partials: NaN
//     only where every slice had nothing but NaN); any, all: or, and;
//   argmin, argmax: the first slice's index among equal values, a NaN's
//     first; the slice's offset added;
//   var, std: each slice's (count, mean, variance) merged by Chan, Golub and
//     LeVeque's update in long double, divided by max(n - ddof, 0); nanvar
//     and nanstd with each slice's count of elements that are not NaN (a
//     partial's third array), NaN where n - ddof <= 0.
#pragma once
#include <cstdint>
#include <vector>

#include "cujit/array.hpp"
#include "plan/reduce_plan.hpp"

namespace cujit {

// One slice's partials of a step: plan::partial_source's outputs in order.
struct SlicePartials {
  std::vector<ArrayView> values;  // in host memory, C-contiguous
  std::int64_t count = 0;   // var, std: elements the slice reduced into each result
  std::int64_t offset = 0;  // argmin, argmax: added to the slice's indices
};

// The step's result (dtype step.out, shape step.out_shape) from every slice's
// partials, in slice order. fail(Internal) when a partial has the wrong size.
HostArray combine_partials(const plan::ReduceStep& step, const std::vector<SlicePartials>& slices);

}  // namespace cujit

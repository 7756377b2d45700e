// split_reduce: how evaluate_split (cujit/multi_gpu.hpp) runs a program with
// reductions over several slices of rows, decided from the shapes alone and
// tested without a GPU.
//
// The split axis is axis 0 of the inputs of the most dimensions (N), of
// extent `rows` (the first such input with more than one row): an input of N
// dimensions with that extent is cut into the slices' rows (as plan_split
// cuts one), any other goes whole. Whether the program's values then come
// apart by rows is found by planning it twice (plan_reductions), with the
// inputs' real shapes and with `rows` replaced by a probe extent that no
// other axis has: a shape of the program whose axis 0 is the probe runs along
// the split axis; where the probe turns up anywhere else, or the probe plan
// fails where the real one did not (`x - mean(x, axis=-1)` of a square x
// broadcasts a row's mean along the columns), the rows do not run apart and
// the program is refused. Each reduction step is then
//
//   Rows    its map runs along the split axis, which it does not reduce
//           (`mean(x, axis=-1)`): each slice reduces its own rows;
//   Across  it reduces the split axis (`sum(x)`, `max(x, axis=0)`): each
//           slice reduces its rows to partials (partial_source), which the
//           host combines in slice order (cpu/split_combine.hpp), and later
//           passes read the combined value, the same on every slice;
//   Whole   its map does not run along the split axis (`sum(w)` of a whole
//           input): reduced once, on the first slice, from the whole map.
//
// A program with no Across step runs as itself on every slice. A program
// with one runs pass by pass (reduce_plan's steps): each Rows step on every
// slice into a result kept on its device (step_source), the maps and
// partials of each Across or Whole step, then the elementwise steps with the
// combined values, and each slice's Rows results, as inputs. Not among them:
// the reductions whose partials do not combine to NumPy's result
// (check_across says which).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cujit/array.hpp"
#include "lang/check.hpp"
#include "plan/reduce_plan.hpp"

namespace cujit::plan {

enum class StepCut { Rows, Across, Whole };

struct SplitReduce {
  bool split = false;              // false: fewer than 2 rows; the program runs whole on one slice
  int ndim = 0;                    // N: the split inputs' dimensions
  std::int64_t rows = 0;           // the split axis's extent
  std::vector<bool> input_rows;    // per Program::inputs: cut into the slices' rows
  ReducePlan plan;                 // planned with the real shapes
  std::vector<StepCut> steps;      // per plan.reductions
  std::vector<bool> output_rows;   // per Program::outputs: cut along its axis 0 with the slices
  std::vector<bool> elementwise_rows;  // per plan.elementwise
  bool across() const;             // an Across step is among them
};

// The plan for checked program `p` (p.has_reductions) over inputs of these
// shapes (nullopt: a scalar passed by value; weak and raw inputs count as
// scalars). `who` starts the messages: fail(Usage) for a program whose rows
// do not run apart, or whose reductions over the split axis a split does not
// combine (check_across); a program error as plan_reductions raises it.
SplitReduce plan_split_reduce(const char* who, const Program& p, const std::vector<std::optional<Shape>>& inputs);

// What a slice computes for an Across (or Whole) step: a program of one input
// `m` (the step's map over the slice's rows, dtype step.in) whose outputs,
// in order, are the partials cpu/split_combine.hpp combines:
//   sum, nansum, mean:      p = sum(m, axis=..., dtype=<64-bit or float acc>)
//   nanmean:                p = nansum(m, ...); c = sum(m == m, ...)  (c: elements not NaN)
//   prod, nanprod:          p = prod(m, ...)
//   min, max, nanmin, nanmax, any, all:  p = <the same>(m, axis=...)
//   argmin, argmax:         v = min(m, ...); k = argmin(m[, axis=0])
//   var, std:               a = mean(m, ...); v = var(m, ...)
//   nanvar, nanstd:         a = nanmean(m, ...); v = nanvar(m, ...); c = sum(m == m, ...)
std::string partial_source(const ReduceStep& step);

// What cpu/split_combine.hpp needs of the slice of rows [begin, end) of
// `rows` for an Across step: the elements it reduced into each result, and
// what its argmin/argmax indices are offset by (whole rows before it for a
// flat index, rows for one along axis 0).
std::int64_t partial_count(const ReduceStep& step, std::int64_t rows, std::int64_t begin, std::int64_t end);
std::int64_t partial_offset(const ReduceStep& step, std::int64_t rows, std::int64_t begin);

// A Rows step as a slice computes it: a program of one input `m` (the step's
// map over the slice's rows), its one output `p` the step's reduction with
// its own keywords (`p = mean(m, axis=(1,), keepdims=true)`).
std::string step_source(const ReduceStep& step);

// The dtype sums and products of `step` combine in (as the CPU's loops
// accumulate): integers and bool in int64/uint64, floats in their accumulator.
DType combine_dtype(const ReduceStep& step);

}  // namespace cujit::plan

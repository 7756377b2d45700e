// The CPU evaluator's reduction kernel, and the run of a program with
// reductions (src/plan/reduce_plan.hpp): each reduction's map evaluated as an
// elementwise program (or read in place when it is an input), reduced, then
// the elementwise steps with the reduced values as broadcast inputs.
//
// Deterministic: the reduced elements of each result are cut into segments of
// a fixed length and each segment into leaves, each leaf summed in lanes of 16
// elements in sequence (as NumPy's 8 lanes of its 128; 128 bytes of lanes here,
// which keep a vector unit busy), lanes, leaves and segments combined
// pairwise; the cuts depend on the shape alone, so every thread count gives
// the same bits. A whole-array reduction of a map computed on the way
// (`sum(x*y)`) computes it segment by segment, into no temporary. float16 and bfloat16 accumulate
// in float32, integers in 64 bits (wrapping, as NumPy's).
#pragma once
#include <vector>

#include "cpu/eval.hpp"
#include "plan/reduce_plan.hpp"

namespace cujit {

// Reduces `x` (host memory of shape step.map_shape and dtype step.in, any
// strides) as `step` says, on up to `threads` threads (0: cpu_threads()).
HostArray reduce_host(const ArrayView& x, const plan::ReduceStep& step, int threads = 0);

// Whether reduce_fused takes `step`: a reduction over all of its map's axes
// that reads the map once (not var, not std).
bool fuses(const plan::ReduceStep& step);
// reduce_host of the map that `map` computes (of shape step.map_shape and
// dtype step.in), segment by segment inside the reduction's own tasks: no
// temporary, and the same bits as reduce_host of the whole map.
HostArray reduce_fused(BlockEvaluator& map, const plan::ReduceStep& step, int threads = 0);

// evaluate_program for a program with reductions (Program::has_reductions).
// Given outputs (`outputs[o].data` set) are written in place, as evaluate_elementwise's.
std::vector<Output> evaluate_reductions(const Program& p, const std::vector<Input>& inputs, const Shape* shape,
                                        const CpuOptions& options, const ArrayView* outputs = nullptr);

}  // namespace cujit

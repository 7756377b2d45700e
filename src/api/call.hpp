// call: the one path of every call, from a checked program to its results.
// evaluate() and jitrun (api/pipeline.cpp), ElementwiseKernel (api/elementwise.cpp)
// and each slice of a multi-GPU split (api/multi_gpu.cpp) get their program
// from the one program cache (api/programs.hpp) and run it here:
//
//   operands moved to where the call runs -> the outputs' shape -> the checks
//   of in-place updates and overlap (before anything is written) -> outputs
//   given or allocated, and staged where the program can fail -> the back end
//   (cpu/eval or gpu/launch) -> staged results and copies back.
//
// A kernel kind plugs in at the back end: elementwise programs launch one
// kernel (gpu/launch), programs with reductions run their plan's passes
// (api/reduce_call on a GPU, cpu/reduce_run on the CPU); the steps before it
// are the same for every kind.
#pragma once
#include <optional>
#include <vector>

#include "api/call_args.hpp"

namespace cujit {

// Runs the call. Returns, per Program::outputs, the array allocated for it
// (an empty Array where it was given or is an input updated in place), or
// nothing when the call allocated no output.
std::vector<Array> run_call(Call& call, const CallHooks& hooks = {});

// The outputs' shape a call asks for where the inputs do not give it:
// `requested` (jitrun --shape, EvaluateOptions::shape), else, with no array
// input to broadcast, the first raw input's (so `out = x[n - 1 - i]`
// reverses x); nullopt: the inputs' broadcast shape.
std::optional<Shape> implied_shape(const Program& p, const ArrayView* inputs, const std::optional<Shape>& requested);

}  // namespace cujit

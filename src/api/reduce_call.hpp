// reduce_call: the GPU back end of a call whose program has reductions
// (api/call.cpp hands it over at the back-end step). The passes of the plan
// (src/plan/reduce_plan.hpp) run in order on the call's device and stream:
//
//   reduction k: its map, when it is not an array already laid out for the
//     kernels, runs as a derived elementwise program into a temporary (in the
//     order [kept axes, reduced axes] when the reduced axes are not adjacent);
//     then the reduction kernel (src/gpu/reduce_launch.hpp) reduces it into
//     the step's result, an array on the device.
//   elementwise step g: a derived program reading the inputs and the results,
//     run by the one call path (run_call) into the caller's outputs, given,
//     allocated or updated in place.
//
// What the reduction kernels do not cover (complex values, the NaN-ignoring
// min/max/arg/mean/var/std of floats, an empty reduction) reduces the map on
// the host with the CPU evaluator's loops (cpu/reduce.hpp) and uploads the
// result, so every program runs and gives the CPU's results.
//
// Ahead of a call, with no GPU (precompiling, jitrun --emit): the kernels the
// same planning code would compile for inputs of given shapes in fresh device
// memory, pass by pass (reduction_kernels).
#pragma once
#include <string>
#include <vector>

#include "api/call_args.hpp"

namespace cujit {

// `run_call` runs each derived program's call (api/call.hpp's, passed in).
std::vector<Array> run_reductions_on_gpu(Call& c, const CallHooks& hooks, CallStats& st, RunCall run_call);

// One kernel a pass of the plan runs.
struct PassKernel {
  int pass = 0;  // the plan's pass (plan::describe numbers them from 1); 0: every pass, in one kernel
  std::string role;     // "reduction", "reduction, map fused", "map", "elementwise", "copy", "row normalisation"
  std::string reads;    // "input x, input y"; "map of pass 1 (temporary)"; "result of pass 1"
  std::string writes;   // "output s"; "result of pass 1"
  // An elementwise kernel (a derived program, the copy kernel): its program
  // (kept by the program it derives from, or for the process) and layout.
  const GpuProgram* program = nullptr;
  KernelLayout layout;
  // A reduction kernel: its symbol, shape of code and source.
  std::string name, what, source;
  // A pass that launches nothing on the GPU says why here (no kernel above).
  std::string note;
};

// The kernels a GPU call of `g` (a program with reductions) compiles, in the
// order it runs them, for inputs of these shapes (per Program::inputs; weak
// ones ignored) in fresh device memory, or passed as 0-d host values where
// `host_value` says so, with outputs the call allocates; `shape` as
// Call::shape. Needs no GPU. Derived programs are kept in `g`.
std::vector<PassKernel> reduction_kernels(const GpuProgram& g, const std::vector<Shape>& shapes,
                                          const std::vector<bool>& host_value, const Shape* shape = nullptr);

// The manifest entry that makes every kernel of a call of `g` on `inputs`
// again for sm_<arch>: g's fields with the inputs' shapes (record mode):
//   shapes = [{ x = [1000, 4], a = "scalar" }]   (a: a 0-d host value; weak inputs take none)
std::string reduction_recipe(const GpuProgram& g, const ArrayView* inputs, int arch);

}  // namespace cujit

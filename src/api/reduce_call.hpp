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
#pragma once
#include <vector>

#include "api/call_args.hpp"

namespace cujit {

// `run_call` runs each derived program's call (api/call.hpp's, passed in).
std::vector<Array> run_reductions_on_gpu(Call& c, const CallHooks& hooks, CallStats& st, RunCall run_call);

}  // namespace cujit

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
// A kernel kind (elementwise today, reductions next) plugs in at the back end;
// the steps before it are the same for every kind.
#pragma once
#include <cuda.h>

#include <cstdint>
#include <functional>
#include <optional>
#include <vector>

#include "core/scratch.hpp"
#include "cujit/array.hpp"
#include "gpu/launch.hpp"

namespace cujit {

// What a call did, for `jitrun -v`. Times in milliseconds.
struct CallStats {
  double upload_ms = 0;    // inputs copied to the device that runs the program
  double run_ms = 0;       // CPU: the evaluation; GPU: launch until the device is done (when waited for)
  double download_ms = 0;  // in/out arrays copied back
  LaunchStats launch;      // the GPU launch
};

struct CallHooks {
  // CPU runs: called now and then with the elements done (CpuOptions::progress).
  std::function<void(std::int64_t done, std::int64_t total)> progress;
  // GPU runs, after the launch has finished: the operands it ran on (jitrun --bench).
  std::function<void(const ArrayView* in, const ArrayView* out)> launched;
  CallStats* stats = nullptr;  // filled when given; the GPU run is then waited for
  bool wait = false;           // wait for the GPU before returning
};

// One call: a checked program (GpuProgram::program() on the CPU) and its operands.
struct Call {
  explicit Call(const GpuProgram& p);
  const GpuProgram& program;
  Device where;
  // Per Program::inputs: a weak input as a host 0-d view of its dtype; any
  // other as an array anywhere (copied to `where` when it is elsewhere) or a
  // host 0-d view (a typed scalar, passed by value).
  Scratch<ArrayView, 8> inputs;
  // Per Program::outputs: the array to write (given[k]), else allocated on
  // `where` with the call's shape. An input updated in place is its own output
  // (Var::input): its slot is ignored.
  Scratch<ArrayView, 8> outputs;
  Scratch<bool, 8> given;
  const Shape* shape = nullptr;  // the outputs' shape (jitrun --shape, CallOptions::shape); else the broadcast
  CUstream stream = nullptr;
  // evaluate() copies arrays to where the call runs; ElementwiseKernel, as
  // CuPy's, takes arrays where they are (the launcher refuses others).
  bool move_inputs = true;
};

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

// call_args: what one call (api/call.hpp) takes and reports: the checked
// program and its operands, the hooks of a caller, the times. Apart from
// run_call, so that a back end that runs further calls (api/reduce_call,
// whose passes are calls of derived programs) takes run_call passed in.
#pragma once
#include <cuda.h>

#include <cstdint>
#include <functional>
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

// run_call's type (api/call.hpp), for the back ends that call it again.
using RunCall = std::vector<Array> (*)(Call& call, const CallHooks& hooks);

}  // namespace cujit

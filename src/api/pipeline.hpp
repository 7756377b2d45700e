// pipeline: evaluate()'s way in to the one path of a call. cujit::evaluate()
// is run_pipeline with no hooks; jitrun runs the same call and uses the hooks
// for what a command line adds (progress, -v timings, --bench, --emit).
//
//   names -> parameters -> the checked program (api/programs.hpp: one cache,
//   one lex and check per text and signature) -> output shape ->
//   [hooks.checked] -> run_call (api/call.hpp) -> named outputs
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "api/call.hpp"
#include "cpu/eval.hpp"
#include "cujit/evaluate.hpp"
#include "gpu/launch.hpp"

namespace cujit {

// What a run did, for `jitrun -v`. Times in milliseconds.
struct PipelineStats {
  Device where;
  double check_ms = 0;     // parse + check (0 when the checked program was cached)
  double upload_ms = 0;    // inputs copied to the device that runs the program
  double run_ms = 0;       // CPU: the evaluation; GPU: launch until the device is done
  double download_ms = 0;  // in/out arrays copied back
  LaunchStats launch;      // the GPU launch
};

struct PipelineHooks {
  std::string kernel_name = kDefaultKernelName;  // the GPU kernel's symbol
  // CPU runs: CpuOptions::progress.
  std::function<void(std::int64_t done, std::int64_t total)> progress;
  // After the check and the output shape, before anything is copied or run:
  // the checked program, its inputs as given (host or device views) and the
  // requested output shape (nullptr: the inputs' broadcast shape). Returning
  // false ends the call there with no outputs (jitrun --emit).
  std::function<bool(const std::shared_ptr<const Program>&, const std::vector<Input>&, const Shape* shape)> checked;
  // GPU runs, after the launch has finished: the program and the operands it
  // ran on (jitrun --bench launches it again).
  std::function<void(const GpuProgram&, int device, const std::vector<ArrayView>& in, const std::vector<ArrayView>& out)>
      launched;
  PipelineStats* stats = nullptr;   // filled when given; the GPU run is then waited for
};

NamedArrays run_pipeline(std::string_view source, const std::vector<NamedArg>& inputs, const EvaluateOptions& options,
                         const PipelineHooks& hooks);

// Runs a checked program again on operands of an earlier run (views on
// `device`, every output given), queued on `stream` with no wait: one launch,
// or every pass of a program with reductions (jitrun --bench times it).
void run_again(const GpuProgram& g, int device, const std::vector<ArrayView>& in, const std::vector<ArrayView>& out,
               CUstream stream);

}  // namespace cujit

// precompile: the kernels of a manifest or an ElementwiseKernel, planned as
// the launcher plans them and compiled through the kernel cache on threads.
#pragma once
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "gpu/codegen.hpp"
#include "cujit/arg.hpp"
#include "cujit/precompile.hpp"
#include "api/elementwise_access.hpp"

namespace cujit {

class ElementwiseKernel;
class GpuProgram;

// The layout GpuProgram::plan gives arrays of a layout kind: "contiguous"
// (C-contiguous, aligned: vectorized as wide as the launcher goes),
// "strided" (every array operand non-contiguous in `ndim` dimensions),
// "broadcast" (each array input a row broadcast over the rows of 2-d
// outputs: the rows layout, vectorized as widely as rows of 1024 elements
// allow; shorter or odd-length rows may plan a narrower vector step, which
// compiles on its first call), with 64-bit index arithmetic when index64 (more than 2^31
// elements). `host_value` marks the inputs passed as 0-d host values.
// An exact layout string (KernelLayout::key_string()) is parsed instead;
// fail(Data) when it is malformed or does not fit the program.
KernelLayout layout_for(const GpuProgram& g, const std::vector<bool>& host_value, const std::string& kind, bool index64,
                        int ndim);

// One kernel to compile. `gpu` must outlive run_precompile.
struct PrecompileJob {
  const GpuProgram* gpu = nullptr;  // an elementwise kernel: its program and layout
  KernelLayout layout;
  int arch = 0;
  std::string kernel;  // for messages: "axpy[T=float32]"
  std::string where;   // prefix of error messages ("m.toml:3:1: "), may be empty
  // A reduction kernel (gpu null): its symbol, shape of code (shown as the
  // layout) and source, compiled as ReduceKernels compiles it.
  std::string name, what, source;
  // A pass of a program with reductions: the program's whole manifest entry,
  // which its kernels carry (cache/record.hpp's RecordGroup).
  std::string group;
};

// Runs the jobs on options.jobs threads; `failures` (already failed while
// planning) are counted in.
PrecompileReport run_precompile(const std::vector<PrecompileJob>& jobs, const PrecompileOptions& options,
                                PrecompileReport failures = {});

// "sm_90"/"90" -> capped arch numbers; empty list -> `fallback` when > 0, else GPU 0's.
// The start of resolve_archs's message when there is no target: jitcache
// says it in its own terms (--arch).
inline constexpr const char* kNoTarget = "no target to compile for";
std::vector<int> resolve_archs(const std::vector<std::string>& archs, int fallback);


}  // namespace cujit

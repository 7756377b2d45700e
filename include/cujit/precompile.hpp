// Compiling kernels ahead, with no GPU, so that an application's calls find
// them in the disk cache and compile nothing.
//
//   cujit::precompile("kernels.toml", {{"sm_80", "sm_90"}});   // a manifest (docs/deploy.md)
//   kernel.precompile({{"T", cujit::DType::Float32}});         // one ElementwiseKernel
//
// The kernels compiled are exactly those a launch looks up: the layout is
// planned by the launcher's own function for arrays of each layout kind, and
// the cache key is the launcher's. Targets are compiled in parallel (NVRTC
// compiles one program per thread). Errors of one kernel (an operation that
// does not check, a failed compile) are counted and reported, the others are
// still compiled; a manifest that cannot be read throws cujit::Error
// (ErrorCode::Data, "FILE:LINE:COLUMN: ..."). Reading manifests needs a
// cujit built with toml++ (ErrorCode::Usage otherwise).
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "cujit/export.hpp"

namespace cujit {

// One kernel done, for progress display.
struct PrecompileItem {
  enum class Result { Compiled, Cached, Failed } result = Result::Compiled;
  std::string kernel;   // "axpy[T=float32]"
  std::string layout;   // e.g. "c.i32.v4|o:c|i:c,c,v"
  std::string target;   // "sm_90"
  std::string error;    // when Failed
  double ms = 0;
  std::size_t done = 0, total = 0;
};

struct PrecompileOptions {
  // Targets, "sm_90" or "90". Empty: each manifest kernel's `arch` field,
  // else the ElementwiseKernel's arch option, else that of GPU 0.
  std::vector<std::string> archs;
  int jobs = 0;  // compile threads; 0: one per core
  // Called after each kernel, one call at a time (from worker threads).
  std::function<void(const PrecompileItem&)> progress;
};

struct PrecompileReport {
  std::size_t compiled = 0;  // NVRTC ran
  std::size_t cached = 0;    // already in the cache
  std::size_t failed = 0;
  std::vector<std::string> errors;  // one message per failure
  int exit_code = 0;                // 0, or the ErrorCode of the first failure
};

CUJIT_API PrecompileReport precompile(const std::string& manifest_path, const PrecompileOptions& options = {});
// The manifest `toml`, named `name` in messages.
CUJIT_API PrecompileReport precompile_manifest(std::string_view toml, const std::string& name,
                                     const PrecompileOptions& options = {});

}  // namespace cujit

// The options and the report of precompiling (cujit/precompile.hpp,
// ElementwiseKernel::precompile): their own header, so that elementwise.hpp
// declares ElementwiseKernel::precompile without depending on the precompiler.
#pragma once
#include <cstddef>
#include <functional>
#include <string>
#include <vector>

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

}  // namespace cujit

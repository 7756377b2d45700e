// Generated CUDA source -> cubin + PTX, through NVRTC.
//
// One NVRTC compile for a real architecture (sm_XX) yields both the cubin and
// the PTX it was assembled from, so a kernel costs one compile, not two: the
// cubin is what the device runs, the PTX (for compute_XX) is what a newer GPU
// JIT-compiles when the cubin does not fit it (see select_image in driver.hpp).
// With NVRTC 13.0 a separate compute_XX compile costs about two thirds of an
// sm_XX one (the front end and NVVM; ptxas is the rest), so two compiles
// would cost ~1.6x. NVRTC releases that keep no PTX for sm_XX targets get the
// second compile as a fallback.
#pragma once
#include <string>
#include <vector>

#include "core/compiled_kernel.hpp"

namespace cujit {

struct CompileOptions {
  int arch = 0;  // 90 for sm_90; required: compile never asks the driver (the launcher passes the device's)
  bool fast_math = false;
  std::vector<std::string> extra;  // passed to NVRTC as given, after cujit's own options
  // The source is the caller's (raw CUDA mode): a compile error is theirs
  // (ErrorCode::Program), not cujit's. Does not change the compiled code.
  bool user_code = false;
};


// Compiles `source` (kernels declared extern "C"). A compile error throws a
// CompileError carrying NVRTC's log, the options, the numbered source and the
// stage: ErrorCode::Program for user_code, else ErrorCode::Internal; missing
// toolkit headers or a broken NVRTC install throw ErrorCode::Device.
// `name_for_log` names the program in NVRTC's log and in error messages.
CompiledKernel compile_cuda(const std::string& source, const std::string& name_for_log,
                            const CompileOptions& opt);

// Starts reading libnvrtc and its builtins library into the page cache in
// the background (the kernel's readahead), once per process: NVRTC's first
// start-up after a boot spends 40-100 ms paging them in from disk, and this
// lets that overlap what the caller does before its first compile (CUDA
// context creation, uploads). Called where a compile is likely to follow (a
// new ElementwiseKernel, evaluate() on a GPU, jitrun). CUJIT_PREWARM=0 turns
// it off. Starts no thread; never throws.
void prewarm_nvrtc() noexcept;

int nvrtc_version();  // major*1000 + minor*10: 13000 for NVRTC 13.0
std::vector<int> nvrtc_supported_archs();  // ascending: {75, 80, 86, ..., 121}
// The highest arch NVRTC supports that is <= wanted, so a GPU newer than
// NVRTC still gets a cubin NVRTC can make plus PTX its driver can JIT.
// Throws ErrorCode::Device when wanted is older than every supported arch.
int cap_arch(int wanted);
// "sm_90" or "90" -> 90; fail(Usage) naming `flag` otherwise (command-line --arch).
int parse_arch(const std::string& text, const char* flag = "--arch");

// The options that decide the compiled code, canonical (the arch resolved and
// capped), space-separated: part of the kernel cache key. Include paths are
// left out: they locate headers, they do not change the code.
std::string options_string(const CompileOptions& opt);

// Where compile_cuda looks for the toolkit headers (cuda_fp16.h, cuda_bf16.h,
// cuda/std/...): the first of $CUDA_HOME/include, $CUDA_PATH/include, the
// include folder beside the loaded libnvrtc, the folder CMake found
// (CUJIT_CUDA_INCLUDE_DIR), /usr/local/cuda/include, /usr/include that holds
// cuda_fp16.h, plus its cccl/ subfolder where present (CUDA 13 keeps
// cuda/std there). Empty when none does.
const std::vector<std::string>& cuda_include_dirs();

}  // namespace cujit

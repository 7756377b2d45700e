// What one NVRTC compile produces. Its own header so that the driver, which
// picks the image to load, does not depend on the compiler (compile.hpp).
#pragma once
#include <string>

namespace cujit {

struct CompiledKernel {
  std::string target;   // "sm_90": the arch actually compiled for (after cap_arch)
  int arch = 0;         // 90
  std::string cubin;    // ELF image for `target`
  std::string ptx;      // PTX for compute_XX of the same XX (no trailing NUL)
  std::string log;      // NVRTC's log; warnings only, as errors throw
  std::string options;  // options_string() of the compile
  double compile_ms = 0;
};

}  // namespace cujit

// What one NVRTC compile produces. Its own header so that the driver, which
// picks the image to load, does not depend on the compiler (compile.hpp).
#pragma once
#include <string>
#include <string_view>

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

// A kernel's images without owning them: a CompiledKernel's or a cache
// entry's (which the cache holds once, shared), so that picking the one to
// load copies no bytes.
struct KernelImages {
  std::string_view target;  // "sm_90"
  int arch = 0;             // 90
  const std::string* cubin = nullptr;
  const std::string* ptx = nullptr;
};
inline KernelImages images_of(const CompiledKernel& k) { return KernelImages{k.target, k.arch, &k.cubin, &k.ptx}; }

}  // namespace cujit

// Does a cached entry hold the kernel it is stored for? A check over bytes,
// no GPU: the cubin must be a CUDA ELF image for the expected SM that defines
// the kernel with the expected parameters, and the PTX must declare it.
//
// The checksum of an entry only catches accidents; someone who can write the
// cache folder can also recompute it. Ownership and mode checks of the folder
// (kernel_cache.cpp) keep such people out; this check makes sure that what is
// loaded is at least the kernel asked for (not another one planted under its
// key, not a damaged image that the driver would reject or misrun).
#pragma once
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cache/entry.hpp"

namespace cujit::cache {

struct ParamSpec {
  std::size_t size = 0;   // bytes
  std::size_t align = 1;  // the parameter's offset is a multiple of this
};

struct KernelExpect {
  std::string name;  // the kernel's symbol (extern "C", so unmangled)
  int arch = 0;      // 90 for sm_90; 0: not checked
  // The parameters in order; nullopt: not checked.
  std::optional<std::vector<ParamSpec>> params;
};

// Empty when `e` passes; otherwise what is wrong, worded for the cache's
// warning line ("cubin: not an ELF image", "cubin defines no kernel k").
std::string check_kernel_image(const Entry& e, const KernelExpect& x);

// The same checks on the cubin alone.
std::string check_cubin(std::string_view cubin, const KernelExpect& x);

}  // namespace cujit::cache

// The kernel cache as this process has used it: how many kernels NVRTC had to
// compile and how many came from the disk or memory cache. An application (or
// an MPI rank) can check that a deployed cache (`jitcache precompile`,
// `jitcache import`) spared it every compile.
#pragma once
#include <cstdint>

#include "cujit/export.hpp"

namespace cujit {

struct KernelCacheStats {
  std::uint64_t compiles = 0;     // NVRTC compiles, failed ones included
  std::uint64_t disk_hits = 0;    // kernels read from the disk cache
  std::uint64_t memory_hits = 0;  // kernels found in this process's memory cache
  double compile_ms = 0;          // time spent in those compiles
};

// Counts since the process started (all threads, all devices).
CUJIT_API KernelCacheStats kernel_cache_stats();

}  // namespace cujit

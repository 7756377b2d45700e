// cujit's device memory pool. Every device array cujit allocates (Array::empty,
// a call's new outputs, scratch, the pieces of a split run) comes from a
// stream-ordered memory pool of its GPU (cuMemAllocFromPoolAsync), as CuPy's
// pool and PyTorch's caching allocator serve their users: freed memory stays
// reserved for the next allocation rather than going back to the driver, so a
// loop that makes new arrays costs no driver call after its first turn (freed
// blocks are kept by size, up to the release threshold, for the next
// allocation of that size).
// CUJIT_POOL=0 allocates directly (cuMemAlloc/cuMemFree) instead.
// docs/runtime.md, "The memory pool", has the rules (release threshold,
// trimming, out of memory, which stream a free is ordered on).
#pragma once
#include <cstdint>

#include "cujit/export.hpp"

namespace cujit {

struct PoolStats {
  // The pool exists on this device: made at its first allocation. False
  // before that, with CUJIT_POOL=0, and where the driver has no memory pools.
  bool active = false;
  std::uint64_t reserved_bytes = 0;       // device memory the pool holds now, in use or kept for reuse
  std::uint64_t used_bytes = 0;           // of it, in arrays still alive (or freed, the free still queued)
  std::uint64_t reserved_high_bytes = 0;  // the most it has held since the process started
  std::uint64_t used_high_bytes = 0;      // the most it has had in use
  // Unused bytes the pool keeps at a synchronization; more goes back to the
  // driver. UINT64_MAX (the default): all of it, until trim_pool().
  std::uint64_t release_threshold = 0;
  std::uint64_t oom_trims = 0;  // allocations that ran out of memory, trimmed the pool and tried again
};

// The pool of CUDA device `device` as it is now. A device without a pool
// (see `active`) reads as zeros; asking makes no pool and starts no driver.
CUJIT_API PoolStats pool_stats(int device = 0);

// Returns the pools' unused memory to the driver, keeping at most
// `keep_bytes` reserved per device, for other allocators in the process
// (cudaMalloc, another library's pool). Waits for each device's legacy
// default stream first, where every free is queued, so that they count.
CUJIT_API void trim_pool(std::uint64_t keep_bytes = 0);

// Sets every pool's release threshold, now and for pools made later; the
// environment's CUJIT_POOL_RELEASE=bytes sets it at start. UINT64_MAX keeps
// all freed memory until trim_pool().
CUJIT_API void set_pool_release_threshold(std::uint64_t bytes);

// ---- host memory
// Host arrays of 128 KiB and more (HostArray: the CPU evaluator's outputs,
// Array::to_host, .npy files read) come from a pool of their own: the C
// library maps aligned memory that large fresh from the kernel at each
// allocation, whose page faults and zeroing cost a second pass over a new
// output (docs/runtime.md, "The host pool"). Freed
// blocks are kept, oldest given back first, up to a limit, and serve the next
// array of 80-100% of their size. The limit is 1/8 of physical memory unless
// CUJIT_HOST_POOL_KEEP=bytes (as CUJIT_POOL_RELEASE) says otherwise;
// CUJIT_HOST_POOL=0 keeps nothing.
struct HostPoolStats {
  std::uint64_t kept_bytes = 0;   // freed memory kept for reuse now
  std::uint64_t kept_blocks = 0;  // in that many blocks
  std::uint64_t limit = 0;        // the most it keeps
  std::uint64_t reuses = 0;       // allocations served from kept blocks
  std::uint64_t fresh = 0;        // allocations that found none to fit
  std::uint64_t oom_trims = 0;    // fresh allocations that failed, freed the kept blocks and tried again
};

CUJIT_API HostPoolStats host_pool_stats();

// Frees kept host blocks, oldest first, until at most `keep_bytes` remain.
CUJIT_API void trim_host_pool(std::uint64_t keep_bytes = 0);

// Sets the most freed host memory the pool keeps (0: none), trimming to it.
CUJIT_API void set_host_pool_limit(std::uint64_t bytes);

}  // namespace cujit

// Memory for host arrays from 128 KiB (public side: include/cujit/pool.hpp).
//
// Why: the C library maps every allocation above its largest mmap threshold
// (32 MiB in glibc) fresh from the kernel and unmaps it at free, so each new
// output of a large CPU call paid the kernel's page faults and its zeroing of
// every page: a second write pass over the output, a quarter of the time of a
// float32 `x*y + 5` at 10^8 elements on two cores and two thirds at 10^7
// (bench/results/cpu_2026-11-25_host_pool.md). Below that, an aligned
// allocation (memalign) asks for more than the block it frees, so glibc's
// moving mmap threshold never catches up with it either: an output of 10^5
// float32 was mapped and faulted in afresh on every call, most of a 1e5
// `tanh` call's time (bench/results/cpu_2026-11-28_host_pool_small.md). Like
// the device pool, this one keeps freed blocks for the next allocation of
// about their size, up to a limit (1/8 of physical memory by default);
// arrays under 128 KiB stay plain allocations, which malloc serves from its heap.
#pragma once
#include <cstddef>

namespace cujit {

// Arrays of this many bytes and more come from the pool.
constexpr std::size_t kHostPoolMin = std::size_t{128} << 10;
// From this size blocks are 2 MiB-aligned with transparent huge pages asked
// for; smaller ones are page-aligned, in multiples of 64 KiB.
constexpr std::size_t kHostPoolHuge = std::size_t{32} << 20;

struct HostBlock {
  void* p = nullptr;
  std::size_t bytes = 0;  // the block's whole size (at least what was asked for)
};

// A block of at least `bytes` (>= kHostPoolMin), 2 MiB-aligned with
// transparent huge pages asked for from kHostPoolHuge, page-aligned below: a
// kept one when one fits, else fresh
// memory (after giving the kept blocks back once, when that fails). Null p:
// out of memory.
HostBlock host_pool_take(std::size_t bytes);

// Keeps `b` for a later take, or frees it when the pool is at its limit.
void host_pool_give(HostBlock b) noexcept;

}  // namespace cujit

// The stream-ordered memory pool behind DeviceBuffer (public side:
// include/cujit/pool.hpp). One pool per GPU, made with cuMemPoolCreate at the
// device's first allocation, so its sizes are cujit's alone and its release
// threshold does not change another library's use of the device's default
// pool.
//
// The stream rule: pool memory is allocated and freed in the order of the
// device's legacy default stream (in its primary context). That stream waits
// for every blocking stream's earlier work, so a free is ordered after all of
// it, and no stream a caller may destroy is ever named by a free. Work on a
// caller's stream that is not the legacy one is ordered with events:
//  - DeviceBuffer(device, bytes) returns memory ready on every stream, as
//    cuMemAlloc's is: when the legacy stream still has work queued (the pool
//    may hand out a block freed behind it), it is waited for.
//  - A call on stream S makes its buffers with a StreamFence: S waits for the
//    allocations (after_allocations), and their frees wait for S's work up to
//    the end of the call (record_use), so outputs dropped at once are safe.
//  - Work a caller queues itself on a non-blocking stream must be finished
//    (synchronized) before the array's last copy goes, as CuPy and PyTorch
//    (record_stream) ask of theirs.
#pragma once
#include <cuda.h>

#include <cstdint>

#include "cujit/pool.hpp"

namespace cujit {

// Whether allocations on `device` come from the pool: CUJIT_POOL is not 0 and
// the device supports memory pools. The first call makes the pool.
bool pool_in_use(int device);

// CUJIT_POOL_RELEASE's text as a byte count: digits with an optional K, M or G
// (binary), or "max" (UINT64_MAX). False when it is none of those.
bool parse_pool_bytes(const char* text, std::uint64_t& bytes);

// The pools' settings from the environment (the device pool's and the host
// pool's, read once each): a switch in CUJIT_CACHE's words (0/off/false/no,
// 1/on/true/yes) and a byte count as parse_pool_bytes reads it. An unset
// variable gives `fallback`; a value that is neither is warned about on
// stderr and gives `fallback` too.
bool pool_env_switch(const char* name, bool fallback);
std::uint64_t pool_env_bytes(const char* name, std::uint64_t fallback);

// Orders a caller's stream with the pool's (legacy) stream around one call.
// One event: recorded on the legacy stream after the allocations, then on the
// caller's stream after the work, where the frees find it.
class StreamFence {
 public:
  StreamFence(int device, CUstream stream);
  ~StreamFence();
  StreamFence(const StreamFence&) = delete;
  StreamFence& operator=(const StreamFence&) = delete;
  CUstream stream() const { return stream_; }
  // The caller's stream waits for the legacy stream's work so far: the
  // allocations made with this fence (and the frees whose memory they reuse).
  void after_allocations();
  // Marks the end of the work on the caller's stream that uses the buffers.
  void record_use();
  // The legacy stream waits for that mark before a free (DeviceBuffer's).
  void order_free() noexcept;

 private:
  int device_;
  CUstream stream_;
  CUevent event_ = nullptr;
};

}  // namespace cujit

#include "core/pool.hpp"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/driver.hpp"
#include "core/fail.hpp"

namespace cujit {
namespace {

constexpr std::uint64_t kKeepAll = std::numeric_limits<std::uint64_t>::max();

struct DevicePool {
  std::once_flag once;
  std::atomic<CUmemoryPool> pool{nullptr};  // null: the device allocates directly (read by stats unlocked)
  std::atomic<std::uint64_t> oom_trims{0};
  // Freed blocks kept by size for the next allocation of that size, so that
  // a loop allocating the same arrays makes no driver call: the pair
  // cuMemAllocFromPoolAsync + cuMemFreeAsync costs about 2 us a call on an
  // H100 (bench/results/pool_h100.md), as much as the launch itself. A block
  // is put here only after its free's waits are queued on the legacy stream,
  // so it is in that stream's order exactly as a pool free's memory is.
  std::mutex cache_mu;
  std::unordered_map<std::size_t, std::vector<CUdeviceptr>> cache;
  std::atomic<std::size_t> cached_bytes{0};  // written under cache_mu
};

// The environment, read once. CUJIT_POOL follows CUJIT_CACHE's words; a value
// that is not understood is warned about and the default kept, as there.
struct PoolConfig {
  bool enabled = true;
  // Unbounded until trim_pool() by default: the driver's own default, 0,
  // returns every unused byte at each synchronization (each to_host), so a
  // loop that synchronizes would map fresh memory every turn. CuPy's pool and
  // PyTorch's caching allocator also keep memory until asked to give it back;
  // an allocation that finds the device full trims and retries (pool.cpp).
  std::atomic<std::uint64_t> threshold{kKeepAll};
};

PoolConfig& config() {
  static PoolConfig* c = [] {
    auto* pc = new PoolConfig;  // never destroyed: buffers may be freed from static destructors
    pc->enabled = pool_env_switch("CUJIT_POOL", true);
    pc->threshold = pool_env_bytes("CUJIT_POOL_RELEASE", kKeepAll);
    return pc;
  }();
  return *c;
}

// One slot per device, made with the first allocation; never destroyed (the
// driver frees the pools at exit, as it does the contexts: driver.hpp).
std::atomic<std::vector<std::unique_ptr<DevicePool>>*> pools{nullptr};

std::vector<std::unique_ptr<DevicePool>>& all_pools() {
  static std::once_flag once;
  std::call_once(once, [] {
    auto* v = new std::vector<std::unique_ptr<DevicePool>>;
    for (int d = 0, n = device_count(); d < n; ++d) v->push_back(std::make_unique<DevicePool>());
    pools.store(v, std::memory_order_release);
  });
  return *pools.load(std::memory_order_acquire);
}

void set_threshold(CUmemoryPool pool, std::uint64_t bytes) {
  cuuint64_t v = bytes;
  CU_CALL(cuMemPoolSetAttribute, pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &v);
}

CUmemoryPool make_pool(int device) {
  ScopedContext ctx(device);
  int supported = 0;
  CU_CALL(cuDeviceGetAttribute, &supported, CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED, device_info(device).handle);
  if (!supported) return nullptr;  // some virtualized GPUs: allocate directly, as CUJIT_POOL=0
  CUmemPoolProps props;
  std::memset(&props, 0, sizeof props);
  props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
  props.handleTypes = CU_MEM_HANDLE_TYPE_NONE;
  props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
  props.location.id = device;
  CUmemoryPool pool = nullptr;
  CU_CALL(cuMemPoolCreate, &pool, &props);
  set_threshold(pool, config().threshold.load());
  return pool;
}

DevicePool& slot(int device) {
  auto& v = all_pools();
  DevicePool& p = *v.at(static_cast<std::size_t>(device));  // device_info() checked the ordinal
  std::call_once(p.once, [&] { p.pool.store(make_pool(device), std::memory_order_release); });
  return p;
}

// The pool of `device` when one was made, without making one.
DevicePool* existing(int device) {
  auto* v = pools.load(std::memory_order_acquire);
  if (!v || device < 0 || device >= static_cast<int>(v->size())) return nullptr;
  DevicePool* p = (*v)[static_cast<std::size_t>(device)].get();
  return p->pool.load(std::memory_order_acquire) ? p : nullptr;
}

std::uint64_t attribute(CUmemoryPool pool, CUmemPool_attribute a) {
  cuuint64_t v = 0;
  CU_CALL(cuMemPoolGetAttribute, pool, a, &v);
  return v;
}

// The bytes of live arrays: the pool's used bytes less the cached blocks
// (which the driver counts as used). Read apart, so never below zero.
std::uint64_t live_bytes(DevicePool& p) {
  const std::uint64_t used = attribute(p.pool.load(), CU_MEMPOOL_ATTR_USED_MEM_CURRENT);
  const std::uint64_t cached = p.cached_bytes.load();
  return used > cached ? used - cached : 0;
}

// ", F bytes free of T" after an out-of-memory error, where the driver can say.
std::string memory_note(CUresult r) {
  if (r != CUDA_ERROR_OUT_OF_MEMORY) return "";
  std::size_t free_b = 0, total_b = 0;
  if (driver().cuMemGetInfo(&free_b, &total_b) != CUDA_SUCCESS) return "";
  return fmt::format(" ({} bytes free of {})", free_b, total_b);
}

// A freed block into the cache, while the cache stays within the release
// threshold (what the driver's pool would keep at a synchronization anyway):
// false when it must go back to the pool instead.
bool cache_put(DevicePool& p, CUdeviceptr ptr, std::size_t bytes) {
  std::lock_guard<std::mutex> lock(p.cache_mu);
  const std::size_t held = p.cached_bytes.load(std::memory_order_relaxed);
  const std::uint64_t limit = config().threshold.load(std::memory_order_relaxed);
  if (bytes > limit || held > limit - bytes) return false;
  p.cache[bytes].push_back(ptr);
  p.cached_bytes.store(held + bytes, std::memory_order_relaxed);
  return true;
}

// A cached block of exactly `bytes`, or 0.
CUdeviceptr cache_take(DevicePool& p, std::size_t bytes) {
  std::lock_guard<std::mutex> lock(p.cache_mu);
  auto it = p.cache.find(bytes);
  if (it == p.cache.end() || it->second.empty()) return 0;
  const CUdeviceptr ptr = it->second.back();
  it->second.pop_back();
  p.cached_bytes.store(p.cached_bytes.load(std::memory_order_relaxed) - bytes, std::memory_order_relaxed);
  return ptr;
}

// Every cached block back to the pool (on the legacy stream; the device's
// context current), before a trim can return their memory.
void cache_flush(DevicePool& p) {
  std::lock_guard<std::mutex> lock(p.cache_mu);
  for (auto& [bytes, blocks] : p.cache)
    for (CUdeviceptr ptr : blocks) CU_CALL(cuMemFreeAsync, ptr, nullptr);
  p.cache.clear();
  p.cached_bytes.store(0, std::memory_order_relaxed);
}

CUdeviceptr alloc_direct(int device, std::size_t bytes) {
  CUdeviceptr p = 0;
  CUresult r = driver().cuMemAlloc(&p, bytes);
  if (context_lost_by(r)) fail(ErrorCode::Device, context_lost_message("cuMemAlloc", r));
  if (r != CUDA_SUCCESS)
    fail(ErrorCode::Device, "cuMemAlloc failed: {} allocating {} bytes on device {}{}", cu_error_text(r), bytes,
         device, memory_note(r));
  return p;
}

// The device is full: the pool's unused memory (and what frees still queued
// hold, once the legacy stream is waited for) goes back to the driver, and
// the allocation is tried once more.
CUresult trim_and_retry(DevicePool& p, CUdeviceptr& ptr, std::size_t bytes) {
  cache_flush(p);
  CU_CALL(cuStreamSynchronize, nullptr);  // every free is queued there (pool.hpp)
  CU_CALL(cuMemPoolTrimTo, p.pool.load(), 0);
  p.oom_trims.fetch_add(1, std::memory_order_relaxed);
  return driver().cuMemAllocFromPoolAsync(&ptr, bytes, p.pool.load(), nullptr);
}

CUdeviceptr alloc_pooled(int device, DevicePool& p, std::size_t bytes) {
  if (CUdeviceptr cached = cache_take(p, bytes)) return cached;
  CUdeviceptr ptr = 0;
  CUmemoryPool pool = p.pool.load(std::memory_order_relaxed);
  CUresult r = driver().cuMemAllocFromPoolAsync(&ptr, bytes, pool, nullptr);
  if (r == CUDA_ERROR_OUT_OF_MEMORY) r = trim_and_retry(p, ptr, bytes);
  if (context_lost_by(r)) fail(ErrorCode::Device, context_lost_message("cuMemAllocFromPoolAsync", r));
  // A failed request can leave the pool holding what it mapped on the way
  // (every byte of an H200, 2026-11-28, for one larger than the device), so
  // other processes could not even create a context: it goes back first.
  if (r == CUDA_ERROR_OUT_OF_MEMORY) CU_CALL(cuMemPoolTrimTo, pool, 0);
  if (r == CUDA_ERROR_OUT_OF_MEMORY)
    fail(ErrorCode::Device,
         "out of memory on device {}: cuMemAllocFromPoolAsync failed: {} allocating {} bytes from cujit's memory pool, "
         "which holds {} bytes, {} of them in arrays still alive, after trimming it and trying again{}. Free arrays "
         "that are no longer needed, or use smaller ones",
         device, cu_error_text(r), bytes, attribute(pool, CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT),
         live_bytes(p), memory_note(r));
  if (r != CUDA_SUCCESS)
    fail(ErrorCode::Device, "cuMemAllocFromPoolAsync failed: {} allocating {} bytes on device {}", cu_error_text(r),
         bytes, device);
  return ptr;
}

// Memory from the legacy stream's order made safe for any stream: the wait
// happens only when that stream still has work queued (the allocation may
// reuse a block freed behind it).
void ready_everywhere() {
  CUresult r = driver().cuStreamQuery(nullptr);
  if (r == CUDA_ERROR_NOT_READY) CU_CALL(cuStreamSynchronize, nullptr);
  else cu_check(r, "cuStreamQuery");
}

}  // namespace

bool parse_pool_bytes(const char* text, std::uint64_t& bytes) {
  const std::string s = text ? text : "";
  if (s == "max") {
    bytes = kKeepAll;
    return true;
  }
  std::size_t k = 0;
  std::uint64_t v = 0;
  for (; k < s.size() && s[k] >= '0' && s[k] <= '9'; ++k)
    if (__builtin_mul_overflow(v, 10u, &v) || __builtin_add_overflow(v, static_cast<unsigned>(s[k] - '0'), &v))
      return false;
  if (k == 0) return false;
  int shift = 0;
  if (k + 1 == s.size()) {
    const char u = s[k];
    shift = u == 'K' || u == 'k' ? 10 : u == 'M' || u == 'm' ? 20 : u == 'G' || u == 'g' ? 30 : -1;
  } else if (k != s.size()) {
    shift = -1;
  }
  if (shift < 0 || (shift > 0 && v > (kKeepAll >> shift))) return false;
  bytes = v << shift;
  return true;
}

namespace {
void warn_env(const char* name, const char* value, const char* expected) {
  std::fprintf(stderr, "cujit: warning: ignoring %s=%s (expected %s)\n", name, value, expected);
}
}  // namespace

bool pool_env_switch(const char* name, bool fallback) {
  const char* v = std::getenv(name);
  if (!v || !*v) return fallback;
  const std::string s = v;
  if (s == "0" || s == "off" || s == "false" || s == "no") return false;
  if (s == "1" || s == "on" || s == "true" || s == "yes") return true;
  warn_env(name, v, "0 or 1");
  return fallback;
}

std::uint64_t pool_env_bytes(const char* name, std::uint64_t fallback) {
  const char* v = std::getenv(name);
  std::uint64_t bytes = 0;
  if (!v || !*v) return fallback;
  if (parse_pool_bytes(v, bytes)) return bytes;
  warn_env(name, v, "a number of bytes such as 1073741824 or 1G, or max");
  return fallback;
}

bool pool_in_use(int device) { return config().enabled && slot(device).pool.load(std::memory_order_relaxed) != nullptr; }

// ---------------------------------------------------------------- DeviceBuffer

DeviceBuffer::DeviceBuffer(int device, std::size_t bytes, std::shared_ptr<StreamFence> fence)
    : device_(device), size_(bytes) {
  ScopedContext ctx(device);  // also validates the ordinal for a 0-byte buffer
  if (bytes == 0) return;
  if (!config().enabled) {
    ptr_ = alloc_direct(device, bytes);
    return;
  }
  DevicePool& p = slot(device);
  if (!p.pool.load(std::memory_order_relaxed)) {
    ptr_ = alloc_direct(device, bytes);
    return;
  }
  ptr_ = alloc_pooled(device, p, bytes);
  pooled_ = true;
  fence_ = std::move(fence);
}

DeviceBuffer::DeviceBuffer(int device, std::size_t bytes) : DeviceBuffer(device, bytes, nullptr) {
  if (pooled_) {
    ScopedContext ctx(device);
    ready_everywhere();
  }
}

DeviceBuffer::~DeviceBuffer() { release(); }

DeviceBuffer::DeviceBuffer(DeviceBuffer&& o) noexcept
    : device_(o.device_),
      ptr_(std::exchange(o.ptr_, 0)),
      size_(std::exchange(o.size_, 0)),
      pooled_(std::exchange(o.pooled_, false)),
      fence_(std::move(o.fence_)) {}

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    release();
    device_ = o.device_;
    ptr_ = std::exchange(o.ptr_, 0);
    size_ = std::exchange(o.size_, 0);
    pooled_ = std::exchange(o.pooled_, false);
    fence_ = std::move(o.fence_);
  }
  return *this;
}

void DeviceBuffer::release() noexcept {
  if (ptr_) {
    // May run from a static destructor after the driver shut down: then the
    // memory is gone already and the error is ignored.
    try {
      ScopedContext ctx(device_);
      if (!pooled_) {
        driver().cuMemFree(ptr_);
      } else {
        if (fence_) fence_->order_free();
        DevicePool* p = existing(device_);
        if (!p || !cache_put(*p, ptr_, size_)) driver().cuMemFreeAsync(ptr_, nullptr);  // the legacy stream: pool.hpp
      }
    } catch (...) {
    }
  }
  ptr_ = 0;
  size_ = 0;
  pooled_ = false;
  fence_.reset();
}

namespace {
void check_size(const char* what, std::size_t bytes, std::size_t size) {
  if (bytes > size)
    fail(ErrorCode::Usage, "DeviceBuffer::{} of {} bytes overruns the {}-byte buffer", what, bytes, size);
}
}  // namespace

void DeviceBuffer::upload(const void* src, std::size_t bytes, CUstream stream) {
  check_size("upload", bytes, size_);
  memcpy_htod(device_, ptr_, src, bytes, stream);
}
void DeviceBuffer::download(void* dst, std::size_t bytes, CUstream stream) const {
  check_size("download", bytes, size_);
  memcpy_dtoh(device_, dst, ptr_, bytes, stream);
}
void DeviceBuffer::fill_bytes(unsigned char value, CUstream stream) {
  memset_d8(device_, ptr_, value, size_, stream);
}

// ---------------------------------------------------------------- StreamFence

StreamFence::StreamFence(int device, CUstream stream) : device_(device), stream_(stream) {
  ScopedContext ctx(device);
  CU_CALL(cuEventCreate, &event_, CU_EVENT_DISABLE_TIMING);
}

StreamFence::~StreamFence() {
  if (!event_) return;
  try {
    ScopedContext ctx(device_);
    driver().cuEventDestroy(event_);  // the waits already queued keep their meaning
  } catch (...) {
  }
}

void StreamFence::after_allocations() {
  ScopedContext ctx(device_);
  CU_CALL(cuEventRecord, event_, nullptr);
  CU_CALL(cuStreamWaitEvent, stream_, event_, 0);
}

void StreamFence::record_use() {
  ScopedContext ctx(device_);
  CU_CALL(cuEventRecord, event_, stream_);
}

void StreamFence::order_free() noexcept {
  // Without record_use (the call failed before its launch) the event marks
  // the legacy stream's own earlier point: the wait is then empty.
  driver().cuStreamWaitEvent(nullptr, event_, 0);
}

// ---------------------------------------------------------------- public API

PoolStats pool_stats(int device) {
  PoolStats s;
  s.release_threshold = config().threshold.load();
  DevicePool* p = existing(device);
  if (!p) return s;
  s.active = true;
  s.reserved_bytes = attribute(p->pool.load(), CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT);
  s.used_bytes = live_bytes(*p);
  s.reserved_high_bytes = attribute(p->pool.load(), CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH);
  s.used_high_bytes = attribute(p->pool.load(), CU_MEMPOOL_ATTR_USED_MEM_HIGH);
  s.oom_trims = p->oom_trims.load(std::memory_order_relaxed);
  return s;
}

void trim_pool(std::uint64_t keep_bytes) {
  auto* v = pools.load(std::memory_order_acquire);
  for (int d = 0; v && d < static_cast<int>(v->size()); ++d) {
    DevicePool* p = existing(d);
    if (!p) continue;
    ScopedContext ctx(d);
    cache_flush(*p);
    synchronize(d, nullptr);  // queued frees finish (all are on the legacy stream): their memory becomes unused
    CU_CALL(cuMemPoolTrimTo, p->pool.load(), static_cast<std::size_t>(keep_bytes));
  }
}

void set_pool_release_threshold(std::uint64_t bytes) {
  config().threshold = bytes;
  auto* v = pools.load(std::memory_order_acquire);
  for (int d = 0; v && d < static_cast<int>(v->size()); ++d)
    if (DevicePool* p = existing(d)) {
      ScopedContext ctx(d);
      cache_flush(*p);  // it may hold more than the new threshold
      set_threshold(p->pool.load(), bytes);
    }
}

}  // namespace cujit

// write_npy_device (io/npy.hpp): a .npy file straight from GPU memory. A host
// copy of the whole array first would cost a pageable copy (the driver's own
// staging, page faults on fresh host memory) before the first byte is
// written; here each GPU's bytes come down through two pinned buffers while
// the previous chunk is written, and the written range's writeback starts at
// once, so the final fsync finds little left to do.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <exception>
#include <map>
#include <thread>

#include "core/driver.hpp"
#include "core/fail.hpp"
#include "io/npy.hpp"

namespace cujit {

namespace {

// Big enough that a write call's cost is amortised, small enough that
// pinning two of them per GPU takes a few milliseconds.
constexpr std::size_t kChunk = std::size_t{16} << 20;

// Two page-locked buffers and a stream each, on one GPU.
class Staging {
 public:
  explicit Staging(int device) : device_(device), streams_{Stream(device), Stream(device)} {
    ScopedContext ctx(device);
    try {
      for (void*& b : buf_) CU_CALL(cuMemHostAlloc, &b, kChunk, 0u);
    } catch (...) {  // the second failed: no destructor runs for the first
      release();
      throw;
    }
  }
  ~Staging() { release(); }
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;
  void* buffer(int k) const { return buf_[k]; }
  const Stream& stream(int k) const { return streams_[k]; }

 private:
  void release() noexcept {
    ScopedContext ctx(device_);
    for (void* b : buf_)
      if (b) driver().cuMemFreeHost(b);  // nothing to report to at teardown
  }
  int device_;
  Stream streams_[2];
  void* buf_[2] = {nullptr, nullptr};
};

bool pwrite_all(int fd, const char* p, std::size_t n, std::size_t at) {
  while (n > 0) {
    const ssize_t w = ::pwrite(fd, p, n, static_cast<off_t>(at));
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += w, at += static_cast<std::size_t>(w), n -= static_cast<std::size_t>(w);
  }
  return true;
}

// One GPU's runs, chunk by chunk: chunk k+1's copy is queued before chunk
// k is written. false with errno set when a write fails.
bool write_runs(int fd, std::size_t base, int device, const std::vector<DeviceBytes>& runs) {
  Staging st(device);
  struct Chunk {
    const char* src;
    std::size_t bytes, at;
  };
  std::vector<Chunk> chunks;
  for (const DeviceBytes& r : runs)
    for (std::size_t done = 0; done < r.bytes; done += kChunk)
      chunks.push_back(Chunk{static_cast<const char*>(r.src) + done, std::min(kChunk, r.bytes - done), base + r.offset + done});
  auto queue = [&](std::size_t k) {
    memcpy_dtoh(device, st.buffer(k % 2), reinterpret_cast<CUdeviceptr>(chunks[k].src), chunks[k].bytes,
                st.stream(k % 2).get());
  };
  if (!chunks.empty()) queue(0);
  for (std::size_t k = 0; k < chunks.size(); ++k) {
    st.stream(k % 2).synchronize();
    if (k + 1 < chunks.size()) queue(k + 1);
    if (!pwrite_all(fd, static_cast<const char*>(st.buffer(k % 2)), chunks[k].bytes, chunks[k].at)) return false;
    // Start the range's writeback now (not a wait): the fsync at the end then
    // overlaps the copies instead of following them. Not every filesystem
    // takes it; the fsync covers what it does not.
    (void)::sync_file_range(fd, static_cast<off_t>(chunks[k].at), static_cast<off_t>(chunks[k].bytes),
                            SYNC_FILE_RANGE_WRITE);
  }
  return true;
}

}  // namespace

void write_npy_device(const std::string& path, DType dtype, const Shape& shape, const std::vector<DeviceBytes>& runs) {
  std::map<int, std::vector<DeviceBytes>> by_device;
  for (const DeviceBytes& r : runs)
    if (r.bytes > 0) by_device[r.device].push_back(r);
  write_npy_with(path, dtype, shape, [&](int fd, std::size_t base) {
    std::vector<std::thread> threads;
    std::vector<std::exception_ptr> errors(by_device.size());
    std::vector<int> err(by_device.size(), 0);
    std::size_t k = 0;
    for (const auto& entry : by_device) {  // (a structured binding cannot be captured in C++17)
      const std::vector<DeviceBytes>* mine = &entry.second;
      threads.emplace_back([&, k, mine, device = entry.first] {
        try {
          if (!write_runs(fd, base, device, *mine)) err[k] = errno;
        } catch (...) {
          errors[k] = std::current_exception();
        }
      });
      ++k;
    }
    for (std::thread& t : threads) t.join();
    for (const std::exception_ptr& e : errors)
      if (e) std::rethrow_exception(e);
    for (int e : err)
      if (e) {
        errno = e;
        return false;
      }
    return true;
  });
}

}  // namespace cujit

// write_npy_device and read_npy_device (io/npy.hpp): .npy files straight from
// and to GPU memory. A host copy of the whole array would cost a pageable copy
// (the driver's own staging, page faults on fresh host memory) on top of the
// file's bytes; here each GPU's bytes pass through two pinned buffers of its
// own, one chunk's copy overlapping the next chunk's read or the previous
// one's write, on a thread per GPU (several readers per GPU), so GPUs on
// their own links move their parts at once. Written ranges start their writeback at once, so the final
// fsync finds little left to do.
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <cstring>
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

// Two page-locked buffers of up to kChunk bytes and a stream each, on one
// GPU; a GPU with less to move pins less (pinning costs about a millisecond
// per few MiB).
class Staging {
 public:
  Staging(int device, std::size_t most) : device_(device), size_(std::min(kChunk, most)), streams_{Stream(device), Stream(device)} {
    ScopedContext ctx(device);
    try {
      for (void*& b : buf_) CU_CALL(cuMemHostAlloc, &b, size_, 0u);
    } catch (...) {  // the second failed: no destructor runs for the first
      release();
      throw;
    }
  }
  ~Staging() { release(); }
  Staging(const Staging&) = delete;
  Staging& operator=(const Staging&) = delete;
  void* buffer(int k) const { return buf_[k]; }
  std::size_t size() const { return size_; }
  const Stream& stream(int k) const { return streams_[k]; }

 private:
  // Waits for the copies still queued (an error can leave one behind), which
  // read or write the buffers, before freeing them; nothing to report to.
  void release() noexcept {
    ScopedContext ctx(device_);
    for (const Stream& st : streams_) (void)driver().cuStreamSynchronize(st.get());
    for (void* b : buf_)
      if (b) driver().cuMemFreeHost(b);  // nothing to report to at teardown
  }
  int device_;
  std::size_t size_;
  Stream streams_[2];
  void* buf_[2] = {nullptr, nullptr};
};

template <class Run> std::size_t total_bytes(const std::vector<Run>& runs) {
  std::size_t n = 0;
  for (const Run& r : runs) n += r.bytes;
  return n;
}

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
// k is written. 0, or the errno of a failed write.
int write_runs(int fd, std::size_t base, int device, const std::vector<DeviceBytes>& runs) {
  Staging st(device, total_bytes(runs));
  const std::size_t chunk = st.size();
  struct Chunk {
    const char* src;
    std::size_t bytes, at;
  };
  std::vector<Chunk> chunks;
  for (const DeviceBytes& r : runs)
    for (std::size_t done = 0; done < r.bytes; done += chunk)
      chunks.push_back(Chunk{static_cast<const char*>(r.src) + done, std::min(chunk, r.bytes - done), base + r.offset + done});
  auto queue = [&](std::size_t k) {
    memcpy_dtoh(device, st.buffer(k % 2), reinterpret_cast<CUdeviceptr>(chunks[k].src), chunks[k].bytes,
                st.stream(k % 2).get());
  };
  if (!chunks.empty()) queue(0);
  for (std::size_t k = 0; k < chunks.size(); ++k) {
    st.stream(k % 2).synchronize();
    if (k + 1 < chunks.size()) queue(k + 1);
    if (!pwrite_all(fd, static_cast<const char*>(st.buffer(k % 2)), chunks[k].bytes, chunks[k].at)) return errno;
    // Start the range's writeback now (not a wait): the fsync at the end then
    // overlaps the copies instead of following them. Not every filesystem
    // takes it; the fsync covers what it does not.
    (void)::sync_file_range(fd, static_cast<off_t>(chunks[k].at), static_cast<off_t>(chunks[k].bytes),
                            SYNC_FILE_RANGE_WRITE);
  }
  return 0;
}

bool pread_all(int fd, char* p, std::size_t n, std::size_t at) {
  while (n > 0) {
    const ssize_t r = ::pread(fd, p, n, static_cast<off_t>(at));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) {
      if (r == 0) errno = ENODATA;  // the file became shorter than its header says
      return false;
    }
    p += r, at += static_cast<std::size_t>(r), n -= static_cast<std::size_t>(r);
  }
  return true;
}

// One GPU's runs, chunk by chunk: chunk k is read into the buffer that chunk
// k-2's copy has left, while chunk k-1's copy runs. 0, or the errno of a
// failed read (ENODATA: the file ended early).
int read_runs(int fd, std::size_t base, int device, const std::vector<DeviceTarget>& runs) {
  std::size_t largest = 0;  // (runs come cut into chunks: buffers of the largest do)
  for (const DeviceTarget& r : runs) largest = std::max(largest, r.bytes);
  Staging st(device, largest);
  const std::size_t chunk = st.size();
  std::size_t k = 0;
  for (const DeviceTarget& r : runs)
    for (std::size_t done = 0; done < r.bytes; done += chunk, ++k) {
      const std::size_t n = std::min(chunk, r.bytes - done);
      char* buf = static_cast<char*>(st.buffer(k % 2));
      st.stream(k % 2).synchronize();
      if (!pread_all(fd, buf, n, base + r.offset + done)) return errno;  // (~Staging waits for the other copy)
      memcpy_htod(device, reinterpret_cast<CUdeviceptr>(static_cast<char*>(r.dst) + done), buf, n,
                  st.stream(k % 2).get());
    }
  st.stream(0).synchronize();
  st.stream(1).synchronize();
  return 0;
}

// work(its items) on a thread per group of items (key(item): the group), for
// the items of any bytes; the first exception is rethrown, else the first
// nonzero error code work returned is (0: all done).
template <class T, class Key, class Work>
int in_threads(const std::vector<T>& items, Key key, Work work) {
  std::map<int, std::vector<T>> groups;
  for (const T& r : items)
    if (r.bytes > 0) groups[key(r)].push_back(r);
  std::vector<std::thread> threads;
  std::vector<std::exception_ptr> errors(groups.size());
  std::vector<int> err(groups.size(), 0);
  std::size_t k = 0;
  try {
    for (const auto& entry : groups) {  // (a structured binding cannot be captured in C++17)
      const std::vector<T>* mine = &entry.second;
      threads.emplace_back([&, k, mine] {
        try {
          err[k] = work(*mine);
        } catch (...) {
          errors[k] = std::current_exception();
        }
      });
      ++k;
    }
  } catch (...) {  // a thread could not start: the started ones finish first
    for (std::thread& t : threads) t.join();
    throw;
  }
  for (std::thread& t : threads) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  for (int e : err)
    if (e) return e;
  return 0;
}

// The value of environment variable `name` when it is a whole number in
// [1, 16] (the measuring knobs below), else 0.
int env_knob(const char* name) {
  const char* s = std::getenv(name);
  if (!s) return 0;
  char* end = nullptr;
  const long v = std::strtol(s, &end, 10);
  return end != s && *end == '\0' && v >= 1 && v <= 16 ? static_cast<int>(v) : 0;
}

// A reader's chunk: 4 MiB, or CUJIT_NPY_CHUNK_MIB (1-16) MiB, for measuring.
// Smaller than a writer's: each reader pins two, and pinning costs more than
// the reads gain from longer calls (2 x H200, 2026-11-28: 8 GiB of inputs
// read in 532 ms with 4 MiB, 743 ms with 16 MiB, bench/results/npy_inputs_2026-11-28/).
std::size_t read_chunk_bytes() {
  const int mib = env_knob("CUJIT_NPY_CHUNK_MIB");
  return static_cast<std::size_t>(mib ? mib : 4) << 20;
}

// Readers per GPU: one thread copies a file's bytes out of the page cache at
// 5-7 GB/s (H200 host, 2026-11-28), a GPU's link takes 50, so each GPU gets
// several, as far as the cores go.
// CUJIT_NPY_READERS (1-16) sets the count, for measuring.
int readers_per_gpu(std::size_t gpus) {
  if (const int n = env_knob("CUJIT_NPY_READERS")) return n;
  const unsigned cores = std::max(1u, std::thread::hardware_concurrency());
  return static_cast<int>(std::clamp<std::size_t>(cores / (2 * std::max<std::size_t>(1, gpus)), 1, 4));
}

}  // namespace

void write_npy_device(const std::string& path, DType dtype, const Shape& shape, const std::vector<DeviceBytes>& runs) {
  write_npy_with(path, dtype, shape, [&](int fd, std::size_t base) {
    const int e = in_threads(runs, [](const DeviceBytes& r) { return r.device; },
                             [&](const std::vector<DeviceBytes>& mine) { return write_runs(fd, base, mine[0].device, mine); });
    errno = e;
    return e == 0;
  });
}

void read_npy_device(const std::string& path, const NpyFile& file, const std::vector<DeviceTarget>& runs) {
  if (file.fortran || file.swap)
    fail(ErrorCode::Usage, "{}: read_npy_device reads C-ordered native-endian data; the file is {}; read it with read_npy",
         path, file.fortran ? "in Fortran order" : "big-endian");
  for (const DeviceTarget& r : runs)
    if (r.offset > file.nbytes || r.bytes > file.nbytes - r.offset)
      fail(ErrorCode::Usage, "{}: read_npy_device: bytes [{}, {}) are past the data's {} bytes", path, r.offset,
           r.offset + r.bytes, file.nbytes);
  // The file read_npy_header described, still: the same file (not one put
  // in its place, whose header could differ) of the same size, and a regular
  // one (O_NONBLOCK: a FIFO put there must not make the open wait).
  struct Fd {
    int fd;
    ~Fd() { ::close(fd); }
  };
  const Fd f{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK)};
  if (f.fd < 0) fail(ErrorCode::Data, "{}: cannot open: {}", path, std::strerror(errno));
  struct stat st {};
  if (::fstat(f.fd, &st) != 0) fail(ErrorCode::Data, "{}: cannot read: {}", path, std::strerror(errno));
  if (!S_ISREG(st.st_mode) || static_cast<std::uint64_t>(st.st_dev) != file.file_device ||
      static_cast<std::uint64_t>(st.st_ino) != file.file_inode || static_cast<std::uint64_t>(st.st_size) != file.file_size)
    fail(ErrorCode::Data, "{}: the file changed after its header was read; read it again", path);
  const int fd = f.fd;
  // Chunks dealt round-robin to each GPU's readers: (device, reader) is a thread.
  std::map<int, int> gpus;
  for (const DeviceTarget& r : runs) gpus[r.device] = 0;
  const int readers = readers_per_gpu(gpus.size());
  const std::size_t read_chunk = read_chunk_bytes();
  struct LaneChunk {
    int lane;  // device * readers + reader
    std::size_t bytes;
    DeviceTarget chunk;
  };
  std::vector<LaneChunk> chunks;
  for (const DeviceTarget& r : runs)
    for (std::size_t done = 0; done < r.bytes; done += read_chunk) {
      const std::size_t n = std::min(read_chunk, r.bytes - done);
      const int reader = gpus[r.device]++ % readers;
      chunks.push_back(LaneChunk{r.device * readers + reader, n,
                                 DeviceTarget{r.device, static_cast<char*>(r.dst) + done, n, r.offset + done}});
    }
  const int e = in_threads(chunks, [](const LaneChunk& c) { return c.lane; }, [&](const std::vector<LaneChunk>& mine) {
    std::vector<DeviceTarget> mine_targets;
    for (const LaneChunk& c : mine) mine_targets.push_back(c.chunk);
    return read_runs(fd, file.data_offset, mine_targets[0].device, mine_targets);
  });
  if (e == ENODATA) fail(ErrorCode::Data, "{}: the data ends before the {} bytes its header announces (was the file changed while it was read?)", path, file.nbytes);
  if (e) fail(ErrorCode::Data, "{}: cannot read: {}", path, std::strerror(e));
}

}  // namespace cujit

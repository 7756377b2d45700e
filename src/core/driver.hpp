// The CUDA driver, opened with dlopen("libcuda.so.1") on first use and never
// linked, so cujit and its CPU paths run on machines without an NVIDIA driver.
// <cuda.h> is used for its types only; every entry point comes from
// cuGetProcAddress at the CUDA_VERSION cujit was built with, which hands back
// the right _v2/_v3 variant of each (cuMemAlloc -> cuMemAlloc_v2, ...).
//
// Lifetime: the driver table, the per-device state, the retained primary
// contexts and the loaded modules live until the process ends and are never
// released: tearing them down from static destructors would race the
// driver's own teardown, and the driver frees all of it at exit anyway.
#pragma once
#include <cuda.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>

namespace cujit {

struct CompiledKernel;
struct KernelImages;

// Every driver entry point cujit calls. The X-macro keeps the struct and the
// resolver in step; names go through <cuda.h>'s version macros, so the member
// for cuMemAlloc is really cuMemAlloc_v2 and is called as driver().cuMemAlloc.
#define CUJIT_DRIVER_FUNCTIONS(X)                                                             \
  X(cuGetErrorName) X(cuGetErrorString) X(cuInit) X(cuDriverGetVersion) X(cuDeviceGet)        \
  X(cuDeviceGetCount) X(cuDeviceGetName) X(cuDeviceGetAttribute) X(cuDeviceTotalMem)          \
  X(cuDevicePrimaryCtxRetain) X(cuDevicePrimaryCtxRelease) X(cuCtxGetCurrent)                 \
  X(cuCtxSetCurrent) X(cuCtxSynchronize) X(cuModuleLoadData) X(cuModuleLoadDataEx)            \
  X(cuModuleGetFunction) X(cuModuleUnload) X(cuFuncGetAttribute) X(cuLaunchKernel)            \
  X(cuOccupancyMaxPotentialBlockSize) X(cuOccupancyMaxActiveBlocksPerMultiprocessor)          \
  X(cuMemAlloc) X(cuMemFree) X(cuMemGetInfo) X(cuMemcpyHtoD) X(cuMemcpyDtoH) X(cuMemcpyDtoD)  \
  X(cuMemcpyHtoDAsync) X(cuMemcpyDtoHAsync) X(cuMemcpyDtoDAsync) X(cuMemsetD8)               \
  X(cuMemsetD8Async) X(cuStreamCreate) X(cuStreamSynchronize) X(cuStreamDestroy)             \
  X(cuEventCreate) X(cuEventRecord) X(cuEventSynchronize) X(cuEventElapsedTime)              \
  X(cuEventDestroy) X(cuPointerGetAttribute) X(cuPointerGetAttributes) X(cuStreamWaitEvent)       \
  X(cuStreamQuery) X(cuMemPoolCreate) X(cuMemPoolSetAttribute) X(cuMemPoolGetAttribute)      \
  X(cuMemPoolTrimTo) X(cuMemAllocFromPoolAsync) X(cuMemFreeAsync) X(cuMemcpyPeer)          \
  X(cuMemHostAlloc) X(cuMemFreeHost)

struct DriverApi {
#define CUJIT_DRIVER_MEMBER(name) decltype(&::name) name = nullptr;
  CUJIT_DRIVER_FUNCTIONS(CUJIT_DRIVER_MEMBER)
#undef CUJIT_DRIVER_MEMBER
};

// The resolved driver, cuInit done and at least one device present; throws
// ErrorCode::Device saying why not (no libcuda, a driver too old, no device).
// The first call loads it (thread-safe); a failure is remembered, not retried.
const DriverApi& driver();
// True when driver() would succeed. Never throws.
bool gpu_available() noexcept;
// Why driver() fails ("no CUDA device found", ...); empty when it does not.
std::string gpu_unavailable_reason() noexcept;
int driver_version();  // cuDriverGetVersion: 13000 for 13.0

// "CUDA_ERROR_INVALID_IMAGE (device kernel image is invalid)"; just the
// number when libcuda could not be loaded to name it.
std::string cu_error_text(CUresult r);
// Throws ErrorCode::Device "<call> failed: <name> (<text>)" unless r is CUDA_SUCCESS.
void cu_check(CUresult r, const char* call);
// Whether `r` leaves the context unusable (a kernel faulted: illegal address,
// trap, assert, ...); every later call in the process then fails with it.
bool context_lost_by(CUresult r);
// The Device error text for such an error met by `call`: the first one names
// the fault and the last launch (kernel, device, grid, block); later ones say
// that the context was lost earlier and to restart the process.
std::string context_lost_message(const char* call, CUresult r);
// CU_CALL(cuMemAlloc, &ptr, n): calls the resolved entry point and names it
// in the error: "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory)".
#define CU_CALL(fn, ...) ::cujit::cu_check(::cujit::driver().fn(__VA_ARGS__), #fn)

namespace detail {
// dlopen()s `soname` as the real loader does and returns the handle; throws the
// same "no CUDA driver: ..." error. Exposed so tests can check that message on
// machines that do have a driver.
void* open_driver_library(const char* soname);
// Runs the whole loading sequence (dlopen, resolve, cuInit, device count) on
// `soname` apart from the process-wide driver and returns why it would be
// unusable, "" when it is usable; the library is closed again. Call it only
// after gpu_available(): a library loaded first under the soname
// libcuda.so.1 would be the one the real loader gets.
std::string probe_driver(const char* soname);
}  // namespace detail

// ---------------------------------------------------------------- devices

struct DeviceInfo {
  int ordinal = 0;
  CUdevice handle = 0;
  std::string name;
  int cc_major = 0, cc_minor = 0;
  int sm_count = 0;
  int max_threads_per_block = 0;
  int max_grid_x = 0;
  int warp_size = 0;
  int max_shared_per_block = 0;
  std::size_t total_memory = 0;
  int arch() const { return cc_major * 10 + cc_minor; }  // 90 for sm_90
};

int device_count();  // >= 1; throws like driver() when there is no device
// Throws ErrorCode::Device for an ordinal with no device.
const DeviceInfo& device_info(int ordinal);
// The device's primary context, retained on first use and kept for the
// process's life.
CUcontext primary_context(int ordinal);

// Makes a device's primary context current for a scope; cheap when it already
// is. A different context that was current is restored at scope exit; a
// thread that had none keeps the primary context, which spares a thread that
// launches in a loop two driver calls per launch.
class ScopedContext {
 public:
  explicit ScopedContext(int ordinal);
  ~ScopedContext();
  ScopedContext(const ScopedContext&) = delete;
  ScopedContext& operator=(const ScopedContext&) = delete;

 private:
  CUcontext previous_ = nullptr;
  bool switched_ = false;
};

// ---------------------------------------------------------------- modules

// Whether a cubin for sm_<cubin_arch> runs on an sm_<device_arch> GPU: same
// major version, device minor at least the cubin's.
bool cubin_runs_on(int cubin_arch, int device_arch);
// The image of `k` to load on a GPU of `device_arch`: the cubin when it runs
// there, else the PTX when the driver can JIT it (PTX arch <= device arch).
// Throws ErrorCode::Device when neither fits.
const std::string& select_image(const KernelImages& k, int device_arch);
const std::string& select_image(const CompiledKernel& k, int device_arch);

// The kernel `kernel_name` of `image` (a cubin, or NUL-free PTX text) on
// `device`. Each (device, key) pair loads its module once, whatever the
// number of threads asking; later calls take a shared lock per device and a
// hash lookup of `key`, which must identify the image (the kernel cache key).
// Callers launching in a loop can keep the returned CUfunction: it stays
// valid for the process's life.
CUfunction get_function(int device, const std::string& key, const std::string& image,
                        const char* kernel_name);
// Modules loaded on `device` so far (tests check the load-once rule with it).
std::size_t module_loads(int device);

// ---------------------------------------------------------------- memory

class StreamFence;  // src/core/pool.hpp

// Device memory on one device; move-only. Size 0 holds no memory. It comes
// from cujit's stream-ordered memory pool (src/core/pool.hpp), or from
// cuMemAlloc with CUJIT_POOL=0. The members are defined in src/core/pool.cpp,
// beside the pool.
class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  // Ready for work on any stream when it returns, as cuMemAlloc's memory is.
  DeviceBuffer(int device, std::size_t bytes);
  // Ready in the legacy default stream's order (fence null), or for work on
  // the fence's stream once StreamFence::after_allocations() has run; the
  // free then waits for the point StreamFence::record_use() marks. A call's
  // outputs are made this way: no wait for the host.
  DeviceBuffer(int device, std::size_t bytes, std::shared_ptr<StreamFence> fence);
  ~DeviceBuffer();
  DeviceBuffer(DeviceBuffer&& o) noexcept;
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;

  CUdeviceptr ptr() const { return ptr_; }
  void* data() const { return reinterpret_cast<void*>(ptr_); }
  std::size_t size() const { return size_; }
  int device() const { return device_; }

  // Whole-buffer transfers; with no stream they are synchronous.
  void upload(const void* src, std::size_t bytes, CUstream stream = nullptr);
  void download(void* dst, std::size_t bytes, CUstream stream = nullptr) const;
  void fill_bytes(unsigned char value, CUstream stream = nullptr);

 private:
  void release() noexcept;
  int device_ = 0;
  CUdeviceptr ptr_ = 0;
  std::size_t size_ = 0;
  bool pooled_ = false;                // freed with cuMemFreeAsync, else cuMemFree
  std::shared_ptr<StreamFence> fence_;  // what the free waits for, beyond the legacy stream
};

// Copies and fills on `device` (whose context they run in). With stream ==
// nullptr they are synchronous (the legacy default stream, host waits);
// otherwise they are queued on the caller's stream.
void memcpy_htod(int device, CUdeviceptr dst, const void* src, std::size_t bytes,
                 CUstream stream = nullptr);
void memcpy_dtoh(int device, void* dst, CUdeviceptr src, std::size_t bytes,
                 CUstream stream = nullptr);
void memcpy_dtod(int device, CUdeviceptr dst, CUdeviceptr src, std::size_t bytes,
                 CUstream stream = nullptr);
void memset_d8(int device, CUdeviceptr dst, unsigned char value, std::size_t bytes,
               CUstream stream = nullptr);
// Between two devices, synchronous: over NVLink or PCIe peer-to-peer where
// the GPUs have it, else staged by the driver (no peer access needs
// enabling); either way no pageable host copy of ours in between.
void memcpy_peer(int dst_device, CUdeviceptr dst, int src_device, CUdeviceptr src, std::size_t bytes);

struct PointerInfo {
  enum Kind { Unregistered, Host, Device, Managed } kind = Unregistered;
  int device = -1;  // the owning device for Device and Managed memory
};
// What a pointer points to: lets an API taking raw pointers (DLPack, CuPy)
// check that device data is on the device the kernel runs on.
PointerInfo pointer_info(const void* p);

// ---------------------------------------------------------------- streams, launch

// A non-blocking stream on one device (cuStreamCreate); move-only.
class Stream {
 public:
  explicit Stream(int device);
  ~Stream();
  Stream(const Stream&) = delete;
  Stream& operator=(const Stream&) = delete;
  CUstream get() const { return stream_; }
  int device() const { return device_; }
  void synchronize() const;

 private:
  int device_;
  CUstream stream_ = nullptr;
};

// A timing event on one device.
class Event {
 public:
  explicit Event(int device);
  ~Event();
  Event(const Event&) = delete;
  Event& operator=(const Event&) = delete;
  void record(CUstream stream = nullptr);
  void synchronize() const;
  // Milliseconds from `start` to this event; both recorded and this one done.
  float elapsed_ms_since(const Event& start) const;

 private:
  int device_;
  CUevent event_ = nullptr;
};

// Waits for all work queued on `stream` (nullptr: the legacy default stream).
void synchronize(int device, CUstream stream = nullptr);
// Waits for all work on the device's primary context, every stream's.
void synchronize_context(int device);

// cuLaunchKernel of a 1-D grid in the device's primary context.
void launch(int device, CUfunction f, unsigned grid, unsigned block, void** params,
            CUstream stream = nullptr, unsigned shared_bytes = 0);
// cuLaunchKernel of a 3-D grid of 2-D blocks in the device's primary context.
void launch_grid(int device, CUfunction f, unsigned grid_x, unsigned grid_y, unsigned grid_z, unsigned block_x,
                 unsigned block_y, void** params, CUstream stream = nullptr, unsigned shared_bytes = 0);
// The block size that maximizes occupancy (cuOccupancyMaxPotentialBlockSize);
// `min_grid`, when given, gets the grid size that fills the device.
int max_potential_block_size(int device, CUfunction f, int* min_grid = nullptr);
int max_active_blocks_per_sm(int device, CUfunction f, int block);

}  // namespace cujit

// A stand-in for the NVIDIA driver (libcuda.so.1) so that CI, which has no
// GPU, can drive cujit down its "no device" and "device memory exhausted"
// paths. Only ever loaded by tests: by path (detail::probe_driver) or through
// LD_LIBRARY_PATH in a child process (tests/fake_driver/nodevice_test.sh).
//
// $CUJIT_FAKE_CUDA picks what it plays, read at cuInit:
//   no-device     cuInit fails with CUDA_ERROR_NO_DEVICE (a driver, no GPU)
//   zero-devices  cuInit succeeds, cuDeviceGetCount says 0
//   init-error    cuInit fails with CUDA_ERROR_UNKNOWN
//   oom           one device (an "sm_90" with 1 GiB); every allocation and
//                 module load fails with CUDA_ERROR_OUT_OF_MEMORY
//   fault         one device that works (host memory stands in for device
//                 memory, modules load, kernels "run" doing nothing) until a
//                 kernel is launched: then, as after a real kernel's
//                 out-of-bounds write, the launch returns success and every
//                 later call CUDA_ERROR_ILLEGAL_ADDRESS (the context is lost)
//   launch-oom    the same device, whose launches fail with CUDA_ERROR_OUT_OF_MEMORY
//   pool          the same device with memory pools (cuMemPoolCreate and the
//                 rest) and 1 GiB of memory that pools and cuMemAlloc share;
//                 kernels do nothing and never fault. A pool keeps freed
//                 blocks and reuses one at least as large as asked for, so a
//                 larger request beside kept blocks runs out of memory until
//                 they are trimmed (tests/unit/test_pool_standin.cpp)
// Entry points cujit never reaches in these roles answer
// CUDA_ERROR_NOT_SUPPORTED.
#include <cuda.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <cstdlib>
#include <cstring>
#include <string>

namespace {

std::string mode() {
  const char* m = std::getenv("CUJIT_FAKE_CUDA");
  return m && *m ? m : "no-device";
}

bool initialized = false;
int fake_context = 0;  // its address is the one context

CUresult fake_cuInit(unsigned int) {
  const std::string m = mode();
  if (m == "no-device") return CUDA_ERROR_NO_DEVICE;
  if (m == "init-error") return CUDA_ERROR_UNKNOWN;
  initialized = true;
  return CUDA_SUCCESS;
}

CUresult fake_cuDriverGetVersion(int* v) {
  *v = CUDA_VERSION;
  return CUDA_SUCCESS;
}

CUresult fake_cuGetErrorName(CUresult r, const char** s) {
  switch (r) {
    case CUDA_SUCCESS: *s = "CUDA_SUCCESS"; return CUDA_SUCCESS;
    case CUDA_ERROR_OUT_OF_MEMORY: *s = "CUDA_ERROR_OUT_OF_MEMORY"; return CUDA_SUCCESS;
    case CUDA_ERROR_NO_DEVICE: *s = "CUDA_ERROR_NO_DEVICE"; return CUDA_SUCCESS;
    case CUDA_ERROR_NOT_SUPPORTED: *s = "CUDA_ERROR_NOT_SUPPORTED"; return CUDA_SUCCESS;
    case CUDA_ERROR_UNKNOWN: *s = "CUDA_ERROR_UNKNOWN"; return CUDA_SUCCESS;
    case CUDA_ERROR_ILLEGAL_ADDRESS: *s = "CUDA_ERROR_ILLEGAL_ADDRESS"; return CUDA_SUCCESS;
    default: *s = nullptr; return CUDA_ERROR_INVALID_VALUE;
  }
}

CUresult fake_cuGetErrorString(CUresult r, const char** s) {
  switch (r) {
    case CUDA_SUCCESS: *s = "no error"; return CUDA_SUCCESS;
    case CUDA_ERROR_OUT_OF_MEMORY: *s = "out of memory"; return CUDA_SUCCESS;
    case CUDA_ERROR_NO_DEVICE: *s = "no CUDA-capable device is detected"; return CUDA_SUCCESS;
    case CUDA_ERROR_NOT_SUPPORTED: *s = "operation not supported"; return CUDA_SUCCESS;
    case CUDA_ERROR_UNKNOWN: *s = "unknown error"; return CUDA_SUCCESS;
    case CUDA_ERROR_ILLEGAL_ADDRESS: *s = "an illegal memory access was encountered"; return CUDA_SUCCESS;
    default: *s = nullptr; return CUDA_ERROR_INVALID_VALUE;
  }
}

// The modes with a working device.
bool works() {
  static const bool w = mode() == "fault" || mode() == "launch-oom" || mode() == "pool";
  return w;
}
bool pools() {
  static const bool p = mode() == "pool";
  return p;
}
int device_count() { return initialized && (mode() == "oom" || works()) ? 1 : 0; }
// Set by a launch in "fault" mode: from then on every call fails, as in a lost context.
std::atomic<bool> faulted{false};
#define FAKE_LOST_CONTEXT_CHECK() \
  if (faulted.load()) return CUDA_ERROR_ILLEGAL_ADDRESS

CUresult fake_cuDeviceGetCount(int* n) {
  if (!initialized) return CUDA_ERROR_NOT_INITIALIZED;
  *n = device_count();
  return CUDA_SUCCESS;
}

CUresult fake_cuDeviceGet(CUdevice* d, int ordinal) {
  if (ordinal < 0 || ordinal >= device_count()) return CUDA_ERROR_INVALID_DEVICE;
  *d = ordinal;
  return CUDA_SUCCESS;
}

CUresult fake_cuDeviceGetName(char* name, int len, CUdevice) {
  std::strncpy(name, "cujit fake device", static_cast<std::size_t>(len));
  if (len > 0) name[len - 1] = '\0';
  return CUDA_SUCCESS;
}

CUresult fake_cuDeviceGetAttribute(int* v, CUdevice_attribute a, CUdevice) {
  switch (a) {
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
    case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
    case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 4; break;
    case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK: *v = 1024; break;
    case CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X: *v = 2147483647; break;
    case CU_DEVICE_ATTRIBUTE_WARP_SIZE: *v = 32; break;
    case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK: *v = 49152; break;
    case CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED: *v = pools() ? 1 : 0; break;
    default: *v = 0; break;
  }
  return CUDA_SUCCESS;
}

CUresult fake_cuDeviceTotalMem(size_t* bytes, CUdevice) {
  *bytes = std::size_t{1} << 30;
  return CUDA_SUCCESS;
}

CUresult fake_cuDevicePrimaryCtxRetain(CUcontext* c, CUdevice) {
  *c = reinterpret_cast<CUcontext>(&fake_context);
  return CUDA_SUCCESS;
}
CUresult fake_cuDevicePrimaryCtxRelease(CUdevice) { return CUDA_SUCCESS; }

thread_local CUcontext current = nullptr;
CUresult fake_cuCtxGetCurrent(CUcontext* c) {
  *c = current;
  return CUDA_SUCCESS;
}
CUresult fake_cuCtxSetCurrent(CUcontext c) {
  current = c;
  return CUDA_SUCCESS;
}

// Device memory in "pool" mode: 1 GiB that direct allocations and the one
// pool share. Host memory stands in for it.
constexpr std::size_t kCapacity = std::size_t{1} << 30;
std::mutex mem_mu;
std::size_t direct_bytes = 0;
std::map<CUdeviceptr, std::size_t> direct_live;
struct FakePool {
  std::size_t reserved = 0, used = 0, reserved_high = 0, used_high = 0;
  std::uint64_t threshold = 0;                  // the driver's default
  std::map<CUdeviceptr, std::size_t> live;      // handed out: pointer -> block size
  std::multimap<std::size_t, CUdeviceptr> kept;  // freed, kept for reuse: size -> pointer
};
FakePool fake_pool;
int fake_pool_handle = 0;  // its address is the one pool

CUresult fake_cuMemAlloc(CUdeviceptr* p, size_t bytes) {
  if (!works()) return CUDA_ERROR_OUT_OF_MEMORY;
  FAKE_LOST_CONTEXT_CHECK();
  std::lock_guard<std::mutex> lock(mem_mu);
  if (pools() && direct_bytes + fake_pool.reserved + bytes > kCapacity) return CUDA_ERROR_OUT_OF_MEMORY;
  *p = reinterpret_cast<CUdeviceptr>(std::malloc(bytes ? bytes : 1));
  if (!*p) return CUDA_ERROR_OUT_OF_MEMORY;
  direct_bytes += bytes;
  direct_live[*p] = bytes;
  return CUDA_SUCCESS;
}
CUresult fake_cuMemFree(CUdeviceptr p) {
  if (!works()) return CUDA_SUCCESS;
  std::lock_guard<std::mutex> lock(mem_mu);
  auto it = direct_live.find(p);
  if (it == direct_live.end()) return CUDA_ERROR_INVALID_VALUE;  // not from cuMemAlloc: a pool block, say
  direct_bytes -= it->second;
  direct_live.erase(it);
  std::free(reinterpret_cast<void*>(p));
  return CUDA_SUCCESS;
}
CUresult fake_cuMemGetInfo(size_t* free_bytes, size_t* total) {
  FAKE_LOST_CONTEXT_CHECK();
  std::lock_guard<std::mutex> lock(mem_mu);
  *free_bytes = pools() ? kCapacity - direct_bytes - fake_pool.reserved : works() ? std::size_t{3} << 28 : 0;
  *total = kCapacity;
  return CUDA_SUCCESS;
}

// Kept blocks go back while the pool holds more than `keep` (mem_mu held).
void trim_locked(std::size_t keep) {
  while (fake_pool.reserved > keep && !fake_pool.kept.empty()) {
    auto it = fake_pool.kept.begin();
    fake_pool.reserved -= it->first;
    std::free(reinterpret_cast<void*>(it->second));
    fake_pool.kept.erase(it);
  }
}
CUresult fake_cuMemPoolCreate(CUmemoryPool* pool, const CUmemPoolProps* props) {
  FAKE_LOST_CONTEXT_CHECK();
  if (!pools() || props->location.type != CU_MEM_LOCATION_TYPE_DEVICE || props->location.id != 0)
    return CUDA_ERROR_NOT_SUPPORTED;
  *pool = reinterpret_cast<CUmemoryPool>(&fake_pool_handle);
  return CUDA_SUCCESS;
}
CUresult fake_cuMemPoolSetAttribute(CUmemoryPool, CUmemPool_attribute a, void* v) {
  if (a != CU_MEMPOOL_ATTR_RELEASE_THRESHOLD) return CUDA_ERROR_NOT_SUPPORTED;
  std::lock_guard<std::mutex> lock(mem_mu);
  fake_pool.threshold = *static_cast<cuuint64_t*>(v);
  return CUDA_SUCCESS;
}
CUresult fake_cuMemPoolGetAttribute(CUmemoryPool, CUmemPool_attribute a, void* v) {
  FAKE_LOST_CONTEXT_CHECK();
  std::lock_guard<std::mutex> lock(mem_mu);
  auto* out = static_cast<cuuint64_t*>(v);
  switch (a) {
    case CU_MEMPOOL_ATTR_RELEASE_THRESHOLD: *out = fake_pool.threshold; return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_CURRENT: *out = fake_pool.reserved; return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_USED_MEM_CURRENT: *out = fake_pool.used; return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_RESERVED_MEM_HIGH: *out = fake_pool.reserved_high; return CUDA_SUCCESS;
    case CU_MEMPOOL_ATTR_USED_MEM_HIGH: *out = fake_pool.used_high; return CUDA_SUCCESS;
    default: return CUDA_ERROR_NOT_SUPPORTED;
  }
}
CUresult fake_cuMemPoolTrimTo(CUmemoryPool, size_t keep) {
  FAKE_LOST_CONTEXT_CHECK();
  std::lock_guard<std::mutex> lock(mem_mu);
  trim_locked(keep);
  return CUDA_SUCCESS;
}
std::atomic<int> pool_allocs{0};  // tests read it through cujit_fake_pool_allocs
CUresult fake_cuMemAllocFromPoolAsync(CUdeviceptr* p, size_t bytes, CUmemoryPool, CUstream) {
  FAKE_LOST_CONTEXT_CHECK();
  ++pool_allocs;
  std::lock_guard<std::mutex> lock(mem_mu);
  std::size_t size = bytes ? bytes : 1;
  auto kept = fake_pool.kept.lower_bound(size);
  if (kept != fake_pool.kept.end()) {
    size = kept->first;
    *p = kept->second;
    fake_pool.kept.erase(kept);
  } else {
    if (direct_bytes + fake_pool.reserved + size > kCapacity) return CUDA_ERROR_OUT_OF_MEMORY;
    *p = reinterpret_cast<CUdeviceptr>(std::malloc(size));
    if (!*p) return CUDA_ERROR_OUT_OF_MEMORY;
    fake_pool.reserved += size;
    fake_pool.reserved_high = std::max(fake_pool.reserved_high, fake_pool.reserved);
  }
  fake_pool.live[*p] = size;
  fake_pool.used += size;
  fake_pool.used_high = std::max(fake_pool.used_high, fake_pool.used);
  return CUDA_SUCCESS;
}
CUresult fake_cuMemFreeAsync(CUdeviceptr p, CUstream) {
  FAKE_LOST_CONTEXT_CHECK();
  std::lock_guard<std::mutex> lock(mem_mu);
  auto it = fake_pool.live.find(p);
  if (it == fake_pool.live.end()) return CUDA_ERROR_INVALID_VALUE;
  fake_pool.used -= it->second;
  fake_pool.kept.emplace(it->second, p);
  fake_pool.live.erase(it);
  return CUDA_SUCCESS;
}
// As the driver does at a synchronization: unused memory above the release
// threshold goes back.
void release_to_threshold() {
  std::lock_guard<std::mutex> lock(mem_mu);
  trim_locked(static_cast<std::size_t>(std::min<std::uint64_t>(fake_pool.threshold, SIZE_MAX)));
}
int fake_module = 0;  // its address is the one module
CUresult fake_cuModuleLoadData(CUmodule* m, const void*) {
  if (!works()) return CUDA_ERROR_OUT_OF_MEMORY;
  FAKE_LOST_CONTEXT_CHECK();
  *m = reinterpret_cast<CUmodule>(&fake_module);
  return CUDA_SUCCESS;
}
CUresult fake_cuModuleLoadDataEx(CUmodule* m, const void* image, unsigned int, CUjit_option*, void**) {
  return fake_cuModuleLoadData(m, image);
}
// One function per kernel name, kept for the process's life (reachable from
// here, so LeakSanitizer does not count them: the ASan stage runs this driver).
std::mutex names_mu;
std::deque<std::string> names;
CUresult fake_cuModuleGetFunction(CUfunction* f, CUmodule, const char* name) {
  FAKE_LOST_CONTEXT_CHECK();
  std::lock_guard<std::mutex> lock(names_mu);
  names.emplace_back(name);
  *f = reinterpret_cast<CUfunction>(&names.back());
  return CUDA_SUCCESS;
}
CUresult fake_cuFuncGetAttribute(int* v, CUfunction_attribute a, CUfunction) {
  FAKE_LOST_CONTEXT_CHECK();
  *v = a == CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK ? 1024 : a == CU_FUNC_ATTRIBUTE_NUM_REGS ? 32 : 0;
  return CUDA_SUCCESS;
}
CUresult fake_cuOccupancyMaxPotentialBlockSize(int* grid, int* block, CUfunction, CUoccupancyB2DSize, size_t, int) {
  FAKE_LOST_CONTEXT_CHECK();
  *grid = 4 * 8;
  *block = 256;
  return CUDA_SUCCESS;
}
CUresult fake_cuOccupancyMaxActiveBlocksPerMultiprocessor(int* n, CUfunction, int, size_t) {
  FAKE_LOST_CONTEXT_CHECK();
  *n = 8;
  return CUDA_SUCCESS;
}
CUresult fake_cuLaunchKernel(CUfunction, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned, unsigned,
                             CUstream, void**, void**) {
  FAKE_LOST_CONTEXT_CHECK();
  if (mode() == "launch-oom") return CUDA_ERROR_OUT_OF_MEMORY;
  if (pools()) return CUDA_SUCCESS;
  faulted = true;  // the kernel's fault shows at the next call, as a real one's does
  return CUDA_SUCCESS;
}
CUresult copy(void* dst, const void* src, size_t bytes) {
  FAKE_LOST_CONTEXT_CHECK();
  std::memcpy(dst, src, bytes);
  return CUDA_SUCCESS;
}
CUresult fake_cuMemcpyHtoD(CUdeviceptr d, const void* s, size_t n) { return copy(reinterpret_cast<void*>(d), s, n); }
CUresult fake_cuMemcpyDtoH(void* d, CUdeviceptr s, size_t n) { return copy(d, reinterpret_cast<void*>(s), n); }
CUresult fake_cuMemcpyDtoD(CUdeviceptr d, CUdeviceptr s, size_t n) {
  return copy(reinterpret_cast<void*>(d), reinterpret_cast<void*>(s), n);
}
CUresult fake_cuMemcpyHtoDAsync(CUdeviceptr d, const void* s, size_t n, CUstream) { return fake_cuMemcpyHtoD(d, s, n); }
CUresult fake_cuMemcpyDtoHAsync(void* d, CUdeviceptr s, size_t n, CUstream) { return fake_cuMemcpyDtoH(d, s, n); }
CUresult fake_cuMemcpyDtoDAsync(CUdeviceptr d, CUdeviceptr s, size_t n, CUstream) { return fake_cuMemcpyDtoD(d, s, n); }
CUresult fake_cuMemcpyPeer(CUdeviceptr d, CUcontext, CUdeviceptr s, CUcontext, size_t n) { return fake_cuMemcpyDtoD(d, s, n); }
CUresult fake_cuMemsetD8(CUdeviceptr d, unsigned char v, size_t n) {
  FAKE_LOST_CONTEXT_CHECK();
  std::memset(reinterpret_cast<void*>(d), v, n);
  return CUDA_SUCCESS;
}
CUresult fake_cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream) { return fake_cuMemsetD8(d, v, n); }
CUresult fake_cuStreamSynchronize(CUstream) {
  FAKE_LOST_CONTEXT_CHECK();
  if (pools()) release_to_threshold();
  return CUDA_SUCCESS;
}
// Work "runs" at once, so every stream is always idle and every event done.
CUresult fake_cuStreamQuery(CUstream) {
  FAKE_LOST_CONTEXT_CHECK();
  return CUDA_SUCCESS;
}
CUresult fake_cuStreamWaitEvent(CUstream, CUevent, unsigned int) {
  FAKE_LOST_CONTEXT_CHECK();
  return CUDA_SUCCESS;
}
std::atomic<int> live_events{0};  // tests read it through cujit_fake_live_events
CUresult fake_cuEventCreate(CUevent* e, unsigned int) {
  FAKE_LOST_CONTEXT_CHECK();
  *e = reinterpret_cast<CUevent>(new int(0));
  ++live_events;
  return CUDA_SUCCESS;
}
CUresult fake_cuEventRecord(CUevent, CUstream) {
  FAKE_LOST_CONTEXT_CHECK();
  return CUDA_SUCCESS;
}
CUresult fake_cuEventDestroy(CUevent e) {
  delete reinterpret_cast<int*>(e);
  --live_events;
  return CUDA_SUCCESS;
}
CUresult fake_cuCtxSynchronize() { return fake_cuStreamSynchronize(nullptr); }
int fake_stream = 0;
CUresult fake_cuStreamCreate(CUstream* st, unsigned int) {
  FAKE_LOST_CONTEXT_CHECK();
  *st = reinterpret_cast<CUstream>(&fake_stream);
  return CUDA_SUCCESS;
}
CUresult fake_cuStreamDestroy(CUstream) { return CUDA_SUCCESS; }
// Plain host memory, as the driver reports memory it does not know.
CUresult fake_cuPointerGetAttributes(unsigned int n, CUpointer_attribute*, void** data, CUdeviceptr) {
  FAKE_LOST_CONTEXT_CHECK();
  (void)n, (void)data;
  return CUDA_SUCCESS;
}

CUresult not_supported() { return CUDA_ERROR_NOT_SUPPORTED; }

struct Named {
  const char* name;
  void* fn;
};
#define FAKE(name) {#name, reinterpret_cast<void*>(&fake_##name)}
const Named kTable[] = {
    FAKE(cuInit), FAKE(cuDriverGetVersion), FAKE(cuGetErrorName), FAKE(cuGetErrorString),
    FAKE(cuDeviceGetCount), FAKE(cuDeviceGet), FAKE(cuDeviceGetName), FAKE(cuDeviceGetAttribute),
    FAKE(cuDeviceTotalMem), FAKE(cuDevicePrimaryCtxRetain), FAKE(cuDevicePrimaryCtxRelease),
    FAKE(cuCtxGetCurrent), FAKE(cuCtxSetCurrent), FAKE(cuMemAlloc), FAKE(cuMemFree),
    FAKE(cuMemGetInfo), FAKE(cuModuleLoadData), FAKE(cuModuleLoadDataEx), FAKE(cuModuleGetFunction),
    FAKE(cuFuncGetAttribute), FAKE(cuOccupancyMaxPotentialBlockSize),
    FAKE(cuOccupancyMaxActiveBlocksPerMultiprocessor), FAKE(cuLaunchKernel), FAKE(cuMemcpyHtoD),
    FAKE(cuMemcpyDtoH), FAKE(cuMemcpyDtoD), FAKE(cuMemcpyHtoDAsync), FAKE(cuMemcpyDtoHAsync),
    FAKE(cuMemcpyDtoDAsync), FAKE(cuMemcpyPeer), FAKE(cuMemsetD8), FAKE(cuMemsetD8Async), FAKE(cuStreamSynchronize),
    FAKE(cuCtxSynchronize), FAKE(cuStreamCreate), FAKE(cuStreamDestroy), FAKE(cuPointerGetAttributes),
    FAKE(cuMemPoolCreate), FAKE(cuMemPoolSetAttribute), FAKE(cuMemPoolGetAttribute), FAKE(cuMemPoolTrimTo),
    FAKE(cuMemAllocFromPoolAsync), FAKE(cuMemFreeAsync), FAKE(cuStreamQuery), FAKE(cuStreamWaitEvent),
    FAKE(cuEventCreate), FAKE(cuEventRecord), FAKE(cuEventDestroy),
};
#undef FAKE

}  // namespace

extern "C" {

// What cujit resolves everything through. Any name is found: one this fake
// does not play answers CUDA_ERROR_NOT_SUPPORTED (it is never called with
// arguments in the roles above).
CUresult CUDAAPI cuGetProcAddress(const char* symbol, void** pfn, int, cuuint64_t,
                                  CUdriverProcAddressQueryResult* status) {
  *pfn = reinterpret_cast<void*>(&not_supported);
  for (const Named& n : kTable)
    if (std::strcmp(n.name, symbol) == 0) *pfn = n.fn;
  if (status) *status = CU_GET_PROC_ADDRESS_SUCCESS;
  return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDriverGetVersion(int* v) { return fake_cuDriverGetVersion(v); }

// For tests: events made and not destroyed (a StreamFence must not leak one).
int cujit_fake_live_events() { return live_events.load(); }
// For tests: cuMemAllocFromPoolAsync calls so far (cujit's cache of freed blocks spares them).
int cujit_fake_pool_allocs() { return pool_allocs.load(); }

}  // extern "C"

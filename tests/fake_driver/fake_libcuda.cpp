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
// Entry points cujit never reaches in these roles answer
// CUDA_ERROR_NOT_SUPPORTED.
#include <cuda.h>

#include <atomic>
#include <deque>
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
  static const bool w = mode() == "fault" || mode() == "launch-oom";
  return w;
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

CUresult fake_cuMemAlloc(CUdeviceptr* p, size_t bytes) {
  if (!works()) return CUDA_ERROR_OUT_OF_MEMORY;
  FAKE_LOST_CONTEXT_CHECK();
  *p = reinterpret_cast<CUdeviceptr>(std::malloc(bytes ? bytes : 1));
  return *p ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
CUresult fake_cuMemFree(CUdeviceptr p) {
  if (works()) std::free(reinterpret_cast<void*>(p));
  return CUDA_SUCCESS;
}
CUresult fake_cuMemGetInfo(size_t* free_bytes, size_t* total) {
  FAKE_LOST_CONTEXT_CHECK();
  *free_bytes = works() ? std::size_t{3} << 28 : 0;
  *total = std::size_t{1} << 30;
  return CUDA_SUCCESS;
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
CUresult fake_cuMemsetD8(CUdeviceptr d, unsigned char v, size_t n) {
  FAKE_LOST_CONTEXT_CHECK();
  std::memset(reinterpret_cast<void*>(d), v, n);
  return CUDA_SUCCESS;
}
CUresult fake_cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream) { return fake_cuMemsetD8(d, v, n); }
CUresult fake_cuStreamSynchronize(CUstream) {
  FAKE_LOST_CONTEXT_CHECK();
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
    FAKE(cuMemcpyDtoDAsync), FAKE(cuMemsetD8), FAKE(cuMemsetD8Async), FAKE(cuStreamSynchronize),
    FAKE(cuCtxSynchronize), FAKE(cuStreamCreate), FAKE(cuStreamDestroy), FAKE(cuPointerGetAttributes),
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

}  // extern "C"

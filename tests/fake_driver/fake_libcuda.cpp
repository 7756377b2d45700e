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
// Entry points cujit never reaches in these roles answer
// CUDA_ERROR_NOT_SUPPORTED.
#include <cuda.h>

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
    default: *s = nullptr; return CUDA_ERROR_INVALID_VALUE;
  }
}

int device_count() { return initialized && mode() == "oom" ? 1 : 0; }

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

CUresult fake_cuMemAlloc(CUdeviceptr*, size_t) { return CUDA_ERROR_OUT_OF_MEMORY; }
CUresult fake_cuMemFree(CUdeviceptr) { return CUDA_SUCCESS; }
CUresult fake_cuMemGetInfo(size_t* free_bytes, size_t* total) {
  *free_bytes = 0;
  *total = std::size_t{1} << 30;
  return CUDA_SUCCESS;
}
CUresult fake_cuModuleLoadData(CUmodule*, const void*) { return CUDA_ERROR_OUT_OF_MEMORY; }
CUresult fake_cuModuleLoadDataEx(CUmodule*, const void*, unsigned int, CUjit_option*, void**) {
  return CUDA_ERROR_OUT_OF_MEMORY;
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
    FAKE(cuMemGetInfo), FAKE(cuModuleLoadData), FAKE(cuModuleLoadDataEx),
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

#include "core/driver.hpp"

#include <dlfcn.h>
#include <link.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/compiled_kernel.hpp"
#include "core/fail.hpp"

namespace cujit {
namespace {

constexpr const char* kDriverLibrary = "libcuda.so.1";

// One loaded module and the kernels looked up in it. `load_mu` serializes
// the first load so that racing threads load it once; lookups afterwards
// only take `fn_mu` shared.
struct ModuleSlot {
  std::mutex load_mu;
  CUmodule module = nullptr;  // guarded by load_mu
  std::shared_mutex fn_mu;
  std::vector<std::pair<std::string, CUfunction>> functions;  // a module has few kernels
};

struct DeviceState {
  DeviceInfo info;
  std::once_flag ctx_once;
  CUcontext ctx = nullptr;
  // Per device, so loads and lookups on one GPU never wait for another's.
  std::shared_mutex modules_mu;
  std::unordered_map<std::string, std::unique_ptr<ModuleSlot>> modules;
  std::atomic<std::size_t> loads{0};
};

struct DriverState {
  DriverApi api;
  bool api_loaded = false;  // entry points resolved: errors can be named even if unusable
  std::string error;        // why the driver is unusable; empty when usable
  int version = 0;
  std::vector<std::unique_ptr<DeviceState>> devices;
};

using GetProcAddressV2 = CUresult (*)(const char*, void**, int, cuuint64_t,
                                      CUdriverProcAddressQueryResult*);
using GetProcAddressV1 = CUresult (*)(const char*, void**, int, cuuint64_t);

std::string api_error_text(const DriverApi& api, CUresult r) {
  const char* name = nullptr;
  const char* text = nullptr;
  if (api.cuGetErrorName(r, &name) != CUDA_SUCCESS || !name)
    return fmt::format("CUDA error {} (unknown to this driver)", static_cast<int>(r));
  if (api.cuGetErrorString(r, &text) != CUDA_SUCCESS || !text) return name;
  return fmt::format("{} ({})", name, text);
}

// Resolves every entry point through cuGetProcAddress: plain dlsym would
// return the oldest ABI of a symbol (cuMemAlloc rather than cuMemAlloc_v2).
// Where the dynamic linker found the library, for messages.
std::string library_path(void* lib, const char* soname) {
  struct link_map* map = nullptr;
  if (dlinfo(lib, RTLD_DI_LINKMAP, &map) == 0 && map && map->l_name && *map->l_name)
    return map->l_name;
  return soname;
}

// The version to ask cuGetProcAddress for `name` at: CUDA_VERSION, except for
// entry points whose newest ABI is not the one <cuda.h> declares under the
// plain name. CUDA 13's driver answers "cuCtxSynchronize" at 13000 with
// cuCtxSynchronize_v2(CUcontext), while the header's cuCtxSynchronize takes
// no argument; called without one, it fails with CONTEXT_IS_DESTROYED.
int abi_version(const char* name) {
  return std::strcmp(name, "cuCtxSynchronize") == 0 ? 12000 : CUDA_VERSION;
}

void resolve(void* lib, const char* soname, DriverApi& api) {
  auto v2 = reinterpret_cast<GetProcAddressV2>(dlsym(lib, "cuGetProcAddress_v2"));
  auto v1 = reinterpret_cast<GetProcAddressV1>(dlsym(lib, "cuGetProcAddress"));
  auto get_version = reinterpret_cast<CUresult (*)(int*)>(dlsym(lib, "cuDriverGetVersion"));
  int version = 0;
  // The toolkit ships a stub libcuda for linking; an LD_LIBRARY_PATH that
  // reaches lib64/stubs makes it shadow the real driver, and then every call
  // fails. Say so rather than blame the driver's age.
  if (get_version && get_version(&version) == CUDA_ERROR_STUB_LIBRARY)
    fail(ErrorCode::Device,
         "no CUDA driver: {} is the CUDA toolkit's stub library, not an NVIDIA driver (is a "
         "stubs folder on LD_LIBRARY_PATH?). cujit needs an NVIDIA driver for GPU work; CPU "
         "paths work without it.",
         library_path(lib, soname));
  auto too_old = [&](const std::string& what) {
    fail(ErrorCode::Device,
         "the CUDA driver is too old for cujit: {} {}; cujit was built with CUDA {}.{} and "
         "needs a driver that supports it: update the NVIDIA driver",
         library_path(lib, soname), what, CUDA_VERSION / 1000, CUDA_VERSION % 1000 / 10);
  };
  if (!v2 && !v1) too_old(fmt::format("(driver API {}) has no cuGetProcAddress", version));
  std::string missing;
  auto get = [&](const char* name) -> void* {
    void* p = nullptr;
    CUdriverProcAddressQueryResult status = CU_GET_PROC_ADDRESS_SUCCESS;
    const int at = abi_version(name);
    CUresult r = v2 ? v2(name, &p, at, CU_GET_PROC_ADDRESS_LEGACY_STREAM, &status)
                    : v1(name, &p, at, CU_GET_PROC_ADDRESS_LEGACY_STREAM);
    if (r != CUDA_SUCCESS || status != CU_GET_PROC_ADDRESS_SUCCESS || !p) {
      missing += missing.empty() ? "" : ", ";
      missing += name;
      return nullptr;
    }
    return p;
  };
#define CUJIT_DRIVER_RESOLVE(name) api.name = reinterpret_cast<decltype(api.name)>(get(#name));
  CUJIT_DRIVER_FUNCTIONS(CUJIT_DRIVER_RESOLVE)
#undef CUJIT_DRIVER_RESOLVE
  if (!missing.empty())
    too_old(fmt::format("(driver API {}) lacks {}", version, missing));
}

DeviceInfo query_device(const DriverApi& api, int ordinal) {
  DeviceInfo d;
  d.ordinal = ordinal;
  cu_check(api.cuDeviceGet(&d.handle, ordinal), "cuDeviceGet");
  char name[256] = {};
  cu_check(api.cuDeviceGetName(name, sizeof name - 1, d.handle), "cuDeviceGetName");
  d.name = name;
  auto attr = [&](CUdevice_attribute a) {
    int v = 0;
    cu_check(api.cuDeviceGetAttribute(&v, a, d.handle), "cuDeviceGetAttribute");
    return v;
  };
  d.cc_major = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR);
  d.cc_minor = attr(CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR);
  d.sm_count = attr(CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT);
  d.max_threads_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK);
  d.max_grid_x = attr(CU_DEVICE_ATTRIBUTE_MAX_GRID_DIM_X);
  d.warp_size = attr(CU_DEVICE_ATTRIBUTE_WARP_SIZE);
  d.max_shared_per_block = attr(CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK);
  cu_check(api.cuDeviceTotalMem(&d.total_memory, d.handle), "cuDeviceTotalMem");
  return d;
}

std::string visible_devices_note() {
  const char* v = std::getenv("CUDA_VISIBLE_DEVICES");
  if (!v) return "";
  return fmt::format(" (CUDA_VISIBLE_DEVICES={})", v);
}

void init(DriverState& s, const char* soname, void*& lib) {
  lib = detail::open_driver_library(soname);
  resolve(lib, soname, s.api);
  s.api_loaded = true;
  CUresult r = s.api.cuInit(0);
  if (r == CUDA_ERROR_NO_DEVICE) fail(ErrorCode::Device, "no CUDA device found{}", visible_devices_note());
  if (r != CUDA_SUCCESS)
    fail(ErrorCode::Device, "the CUDA driver cannot be used: cuInit failed: {}",
         api_error_text(s.api, r));
  cu_check(s.api.cuDriverGetVersion(&s.version), "cuDriverGetVersion");
  int n = 0;
  cu_check(s.api.cuDeviceGetCount(&n), "cuDeviceGetCount");
  if (n <= 0) fail(ErrorCode::Device, "no CUDA device found{}", visible_devices_note());
  for (int k = 0; k < n; ++k) {
    auto d = std::make_unique<DeviceState>();
    d->info = query_device(s.api, k);
    s.devices.push_back(std::move(d));
  }
}

// The driver state, created once and never destroyed (see driver.hpp).
DriverState& state() noexcept {
  static std::once_flag once;
  static DriverState* s = nullptr;
  std::call_once(once, [] {
    auto* st = new DriverState;
    void* lib = nullptr;  // kept open for the process's life
    try {
      init(*st, kDriverLibrary, lib);
    } catch (const std::exception& e) {
      st->error = e.what();
      st->devices.clear();
    }
    s = st;
  });
  return *s;
}

// The table without the usability check, for destructors: anything they
// release was made through a usable driver, and they must not throw.
const DriverApi& api() noexcept { return state().api; }

DeviceState& device_state(int ordinal) {
  driver();
  DriverState& s = state();
  if (ordinal < 0 || ordinal >= static_cast<int>(s.devices.size()))
    fail(ErrorCode::Device, "CUDA device {} does not exist: this machine has {} ({}){}", ordinal,
         s.devices.size() == 1 ? "1 device" : fmt::format("{} devices", s.devices.size()),
         s.devices.size() == 1 ? "device 0" : fmt::format("devices 0 to {}", s.devices.size() - 1),
         visible_devices_note());
  return *s.devices[static_cast<std::size_t>(ordinal)];
}

std::string where(const DeviceInfo& d, const char* kernel_name) {
  return fmt::format("kernel '{}' on device {} ({}, sm_{})", kernel_name, d.ordinal, d.name,
                     d.arch());
}

bool is_cubin(const std::string& image) {
  return image.size() >= 4 && image.compare(0, 4, "\x7f" "ELF") == 0;
}

CUmodule load_module(const DeviceInfo& d, const std::string& image, const char* kernel_name) {
  const DriverApi& api = driver();
  CUmodule m = nullptr;
  if (image.empty())
    fail(ErrorCode::Internal, "internal error: empty image for {}", where(d, kernel_name));
  if (is_cubin(image)) {
    CUresult r = api.cuModuleLoadData(&m, image.data());
    if (context_lost_by(r)) fail(ErrorCode::Device, context_lost_message("cuModuleLoadData", r));
    if (r != CUDA_SUCCESS)
      fail(ErrorCode::Device, "cuModuleLoadData failed: {} loading {}", cu_error_text(r),
           where(d, kernel_name));
    return m;
  }
  // PTX goes through the driver's JIT, whose log says what it rejected.
  std::string log(16384, '\0');
  CUjit_option keys[] = {CU_JIT_ERROR_LOG_BUFFER, CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES};
  void* values[] = {&log[0], reinterpret_cast<void*>(static_cast<std::uintptr_t>(log.size()))};
  CUresult r = api.cuModuleLoadDataEx(&m, image.c_str(), 2, keys, values);
  if (context_lost_by(r)) fail(ErrorCode::Device, context_lost_message("cuModuleLoadDataEx", r));
  if (r != CUDA_SUCCESS) {
    log.resize(log.find('\0'));
    fail(ErrorCode::Device, "cuModuleLoadDataEx failed: {} JIT-compiling the PTX of {}{}{}",
         cu_error_text(r), where(d, kernel_name), log.empty() ? "" : "\nJIT log:\n", log);
  }
  return m;
}

CUfunction find_function(ModuleSlot& slot, const char* kernel_name) {
  std::shared_lock<std::shared_mutex> lock(slot.fn_mu);
  for (const auto& f : slot.functions)
    if (f.first == kernel_name) return f.second;
  return nullptr;
}

}  // namespace

namespace detail {
void* open_driver_library(const char* soname) {
  void* lib = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
  if (!lib) {
    const char* why = dlerror();
    fail(ErrorCode::Device,
         "no CUDA driver: {} could not be loaded ({}). cujit needs an NVIDIA driver for GPU "
         "work; CPU paths work without it.",
         soname, why ? why : "unknown reason");
  }
  return lib;
}

std::string probe_driver(const char* soname) {
  DriverState s;
  void* lib = nullptr;
  std::string error;
  try {
    init(s, soname, lib);
  } catch (const std::exception& e) {
    error = e.what();
  }
  if (lib) dlclose(lib);
  return error;
}
}  // namespace detail

const DriverApi& driver() {
  DriverState& s = state();
  if (!s.error.empty()) fail(ErrorCode::Device, s.error);
  return s.api;
}

bool gpu_available() noexcept { return state().error.empty(); }

std::string gpu_unavailable_reason() noexcept {
  try {
    return state().error;
  } catch (...) {
    return "out of memory";
  }
}

int driver_version() {
  driver();
  return state().version;
}

namespace {

// The last kernel launched, for the report of a fault: a kernel's fault shows
// at a later call (a copy, a synchronize), when only the launch order says which
// kernel it was. Relaxed stores: the launch path stays a few stores dearer.
struct LastLaunch {
  std::atomic<CUfunction> fn{nullptr};
  std::atomic<int> device{-1};
  std::atomic<unsigned> grid_x{0}, grid_y{0}, grid_z{0}, block_x{0}, block_y{0}, shared{0};
};
LastLaunch last_launch;

void note_launch(int device, CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx, unsigned by,
                 unsigned shared) noexcept {
  last_launch.fn.store(f, std::memory_order_relaxed);
  last_launch.device.store(device, std::memory_order_relaxed);
  last_launch.grid_x.store(gx, std::memory_order_relaxed);
  last_launch.grid_y.store(gy, std::memory_order_relaxed);
  last_launch.grid_z.store(gz, std::memory_order_relaxed);
  last_launch.block_x.store(bx, std::memory_order_relaxed);
  last_launch.block_y.store(by, std::memory_order_relaxed);
  last_launch.shared.store(shared, std::memory_order_relaxed);
}

// The name get_function looked `f` up by, on `device`; "" when unknown.
std::string kernel_name_of(int device, CUfunction f) {
  DriverState& s = state();
  if (!f || device < 0 || device >= static_cast<int>(s.devices.size())) return "";
  DeviceState& d = *s.devices[static_cast<std::size_t>(device)];
  std::shared_lock<std::shared_mutex> lock(d.modules_mu);
  for (const auto& m : d.modules) {
    std::shared_lock<std::shared_mutex> fl(m.second->fn_mu);
    for (const auto& named : m.second->functions)
      if (named.second == f) return named.first;
  }
  return "";
}

std::string describe_launch(int device, CUfunction f, unsigned gx, unsigned gy, unsigned gz, unsigned bx,
                            unsigned by, unsigned shared) {
  std::string name = kernel_name_of(device, f);
  return fmt::format("kernel '{}' on device {}, grid {} x {} x {} of blocks of {} x {} threads, {} bytes of "
                     "dynamic shared memory",
                     name.empty() ? "(not loaded by cujit)" : name, device, gx, gy, gz, bx, by, shared);
}

std::string describe_last_launch() {
  const int device = last_launch.device.load(std::memory_order_relaxed);
  if (device < 0) return "no kernel was launched by cujit in this process";
  return describe_launch(device, last_launch.fn.load(std::memory_order_relaxed),
                         last_launch.grid_x.load(std::memory_order_relaxed),
                         last_launch.grid_y.load(std::memory_order_relaxed),
                         last_launch.grid_z.load(std::memory_order_relaxed),
                         last_launch.block_x.load(std::memory_order_relaxed),
                         last_launch.block_y.load(std::memory_order_relaxed),
                         last_launch.shared.load(std::memory_order_relaxed));
}

}  // namespace

bool context_lost_by(CUresult r) {
  switch (r) {
    case CUDA_ERROR_ILLEGAL_ADDRESS:
    case CUDA_ERROR_LAUNCH_FAILED:
    case CUDA_ERROR_ILLEGAL_INSTRUCTION:
    case CUDA_ERROR_MISALIGNED_ADDRESS:
    case CUDA_ERROR_INVALID_ADDRESS_SPACE:
    case CUDA_ERROR_INVALID_PC:
    case CUDA_ERROR_HARDWARE_STACK_ERROR:
    case CUDA_ERROR_ASSERT:
    case CUDA_ERROR_LAUNCH_TIMEOUT:
    case CUDA_ERROR_ECC_UNCORRECTABLE:
      return true;
    default:
      return false;
  }
}

std::string context_lost_message(const char* call, CUresult r) {
  // The first report names the fault and the launch; later calls fail at once
  // (the driver answers every call in a lost context with the same error) and
  // repeat it, so no caller is left guessing or waiting.
  static std::mutex mu;
  static std::string first;
  std::lock_guard<std::mutex> lock(mu);
  if (first.empty()) {
    first = fmt::format("{} (reported by {}); the last launch before it: {}", cu_error_text(r), call,
                        describe_last_launch());
    return fmt::format("a kernel faulted on the GPU: {}. The GPU context is lost: every later GPU call in this "
                       "process fails; restart the process to use the GPU again (CPU paths still work)",
                       first);
  }
  return fmt::format("{} failed: the GPU context was lost earlier, when a kernel faulted: {}. Restart the "
                     "process to use the GPU again (CPU paths still work)",
                     call, first);
}

std::string cu_error_text(CUresult r) {
  const DriverState& s = state();
  if (!s.api_loaded) return fmt::format("CUDA error {}", static_cast<int>(r));
  return api_error_text(s.api, r);
}

void cu_check(CUresult r, const char* call) {
  if (r == CUDA_SUCCESS) return;
  if (context_lost_by(r)) fail(ErrorCode::Device, context_lost_message(call, r));
  fail(ErrorCode::Device, "{} failed: {}", call, cu_error_text(r));
}

int device_count() {
  driver();
  return static_cast<int>(state().devices.size());
}

const DeviceInfo& device_info(int ordinal) { return device_state(ordinal).info; }

CUcontext primary_context(int ordinal) {
  DeviceState& d = device_state(ordinal);
  std::call_once(d.ctx_once, [&] { CU_CALL(cuDevicePrimaryCtxRetain, &d.ctx, d.info.handle); });
  return d.ctx;
}

ScopedContext::ScopedContext(int ordinal) {
  CUcontext want = primary_context(ordinal);
  CU_CALL(cuCtxGetCurrent, &previous_);
  if (previous_ != want) {
    CU_CALL(cuCtxSetCurrent, want);
    switched_ = previous_ != nullptr;
  }
}

ScopedContext::~ScopedContext() {
  if (switched_) api().cuCtxSetCurrent(previous_);  // nothing useful to do on failure
}

// ---------------------------------------------------------------- modules

bool cubin_runs_on(int cubin_arch, int device_arch) {
  return cubin_arch / 10 == device_arch / 10 && cubin_arch % 10 <= device_arch % 10;
}

const std::string& select_image(const KernelImages& k, int device_arch) {
  if (!k.cubin->empty() && cubin_runs_on(k.arch, device_arch)) return *k.cubin;
  if (!k.ptx->empty() && k.arch <= device_arch) return *k.ptx;
  fail(ErrorCode::Device,
       "a kernel compiled for {} cannot run on an sm_{} GPU: compile it for that GPU's "
       "architecture",
       k.target, device_arch);
}

const std::string& select_image(const CompiledKernel& k, int device_arch) { return select_image(images_of(k), device_arch); }

CUfunction get_function(int device, const std::string& key, const std::string& image,
                        const char* kernel_name) {
  DeviceState& d = device_state(device);
  ModuleSlot* slot = nullptr;
  {
    std::shared_lock<std::shared_mutex> lock(d.modules_mu);
    auto it = d.modules.find(key);
    if (it != d.modules.end()) slot = it->second.get();
  }
  if (slot) {
    if (CUfunction f = find_function(*slot, kernel_name)) return f;
  } else {
    std::unique_lock<std::shared_mutex> lock(d.modules_mu);
    auto& p = d.modules[key];
    if (!p) p = std::make_unique<ModuleSlot>();
    slot = p.get();
  }
  // Loading happens outside modules_mu, so a slow PTX JIT of one kernel does
  // not hold up lookups of the others on this device.
  std::lock_guard<std::mutex> load_lock(slot->load_mu);
  if (CUfunction f = find_function(*slot, kernel_name)) return f;
  if (!slot->module) {
    ScopedContext ctx(device);
    slot->module = load_module(d.info, image, kernel_name);
    d.loads.fetch_add(1, std::memory_order_relaxed);
  }
  CUfunction f = nullptr;
  CUresult r = driver().cuModuleGetFunction(&f, slot->module, kernel_name);
  if (context_lost_by(r)) fail(ErrorCode::Device, context_lost_message("cuModuleGetFunction", r));
  if (r != CUDA_SUCCESS)
    fail(ErrorCode::Device, "cuModuleGetFunction failed: {} looking up {}", cu_error_text(r),
         where(d.info, kernel_name));
  std::unique_lock<std::shared_mutex> lock(slot->fn_mu);
  slot->functions.emplace_back(kernel_name, f);
  return f;
}

std::size_t module_loads(int device) {
  return device_state(device).loads.load(std::memory_order_relaxed);
}

// ---------------------------------------------------------------- memory

void memcpy_htod(int device, CUdeviceptr dst, const void* src, std::size_t bytes,
                 CUstream stream) {
  if (bytes == 0) return;
  ScopedContext ctx(device);
  if (stream)
    CU_CALL(cuMemcpyHtoDAsync, dst, src, bytes, stream);
  else
    CU_CALL(cuMemcpyHtoD, dst, src, bytes);
}

void memcpy_dtoh(int device, void* dst, CUdeviceptr src, std::size_t bytes, CUstream stream) {
  if (bytes == 0) return;
  ScopedContext ctx(device);
  if (stream)
    CU_CALL(cuMemcpyDtoHAsync, dst, src, bytes, stream);
  else
    CU_CALL(cuMemcpyDtoH, dst, src, bytes);
}

void memcpy_dtod(int device, CUdeviceptr dst, CUdeviceptr src, std::size_t bytes,
                 CUstream stream) {
  if (bytes == 0) return;
  ScopedContext ctx(device);
  if (stream) {
    CU_CALL(cuMemcpyDtoDAsync, dst, src, bytes, stream);
  } else {
    // cuMemcpyDtoD returns before the copy ends; "synchronous" here means done.
    CU_CALL(cuMemcpyDtoD, dst, src, bytes);
    CU_CALL(cuStreamSynchronize, nullptr);
  }
}

void memcpy_peer(int dst_device, CUdeviceptr dst, int src_device, CUdeviceptr src, std::size_t bytes) {
  if (bytes == 0) return;
  if (dst_device == src_device) return memcpy_dtod(dst_device, dst, src, bytes);
  const CUcontext from = primary_context(src_device);
  ScopedContext ctx(dst_device);
  // Ordered on the legacy streams of both contexts; waiting for this one's
  // waits for the copy.
  CU_CALL(cuMemcpyPeer, dst, primary_context(dst_device), src, from, bytes);
  CU_CALL(cuStreamSynchronize, nullptr);
}

void memset_d8(int device, CUdeviceptr dst, unsigned char value, std::size_t bytes,
               CUstream stream) {
  if (bytes == 0) return;
  ScopedContext ctx(device);
  if (stream) {
    CU_CALL(cuMemsetD8Async, dst, value, bytes, stream);
  } else {
    CU_CALL(cuMemsetD8, dst, value, bytes);
    CU_CALL(cuStreamSynchronize, nullptr);  // memsets of device memory return early
  }
}

PointerInfo pointer_info(const void* p) {
  const DriverApi& api = driver();
  unsigned int memory_type = 0;
  int ordinal = -1;
  unsigned int managed = 0;  // the driver writes a bool; zeroed wider storage reads either way
  CUpointer_attribute attrs[] = {CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
                                 CU_POINTER_ATTRIBUTE_DEVICE_ORDINAL,
                                 CU_POINTER_ATTRIBUTE_IS_MANAGED};
  void* data[] = {&memory_type, &ordinal, &managed};
  // Unlike cuPointerGetAttribute, this succeeds with zeroed answers for plain host memory.
  cu_check(api.cuPointerGetAttributes(3, attrs, data, reinterpret_cast<CUdeviceptr>(p)),
           "cuPointerGetAttributes");
  PointerInfo info;
  if (managed) {
    info.kind = PointerInfo::Managed;
    info.device = ordinal;
  } else if (memory_type == CU_MEMORYTYPE_DEVICE) {
    info.kind = PointerInfo::Device;
    info.device = ordinal;
  } else if (memory_type == CU_MEMORYTYPE_HOST) {
    info.kind = PointerInfo::Host;
  }
  return info;
}

// ---------------------------------------------------------------- streams, launch

Stream::Stream(int device) : device_(device) {
  ScopedContext ctx(device);
  CU_CALL(cuStreamCreate, &stream_, CU_STREAM_NON_BLOCKING);
}

Stream::~Stream() {
  if (stream_) api().cuStreamDestroy(stream_);  // at exit the driver may be gone: ignore
}

void Stream::synchronize() const { CU_CALL(cuStreamSynchronize, stream_); }

Event::Event(int device) : device_(device) {
  ScopedContext ctx(device);
  CU_CALL(cuEventCreate, &event_, CU_EVENT_DEFAULT);
}

Event::~Event() {
  if (event_) api().cuEventDestroy(event_);
}

void Event::record(CUstream stream) {
  ScopedContext ctx(device_);  // a null stream means this device's default stream
  CU_CALL(cuEventRecord, event_, stream);
}

void Event::synchronize() const { CU_CALL(cuEventSynchronize, event_); }

float Event::elapsed_ms_since(const Event& start) const {
  float ms = 0;
  CU_CALL(cuEventElapsedTime, &ms, start.event_, event_);
  return ms;
}

void synchronize(int device, CUstream stream) {
  ScopedContext ctx(device);
  CU_CALL(cuStreamSynchronize, stream);
}

void synchronize_context(int device) {
  ScopedContext ctx(device);
  cu_check(driver().cuCtxSynchronize(), "cuCtxSynchronize");
}

namespace {
// A launch the driver refused: which kernel, its grid, and for a lack of memory
// or resources the device's memory, so the message says what did not fit.
[[noreturn]] void fail_launch(CUresult r, int device, CUfunction f, unsigned gx, unsigned gy, unsigned gz,
                              unsigned bx, unsigned by, unsigned shared) {
  if (context_lost_by(r)) fail(ErrorCode::Device, context_lost_message("cuLaunchKernel", r));
  std::string memory;
  if (r == CUDA_ERROR_OUT_OF_MEMORY || r == CUDA_ERROR_LAUNCH_OUT_OF_RESOURCES) {
    std::size_t free_b = 0, total_b = 0;
    if (driver().cuMemGetInfo(&free_b, &total_b) == CUDA_SUCCESS)
      memory = fmt::format(" ({} bytes of device memory free of {})", free_b, total_b);
  }
  fail(ErrorCode::Device, "cuLaunchKernel failed: {} launching {}{}", cu_error_text(r),
       describe_launch(device, f, gx, gy, gz, bx, by, shared), memory);
}
}  // namespace

void launch(int device, CUfunction f, unsigned grid, unsigned block, void** params,
            CUstream stream, unsigned shared_bytes) {
  launch_grid(device, f, grid, 1, 1, block, 1, params, stream, shared_bytes);
}

void launch_grid(int device, CUfunction f, unsigned grid_x, unsigned grid_y, unsigned grid_z, unsigned block_x,
                 unsigned block_y, void** params, CUstream stream, unsigned shared_bytes) {
  ScopedContext ctx(device);
  note_launch(device, f, grid_x, grid_y, grid_z, block_x, block_y, shared_bytes);
  CUresult r = driver().cuLaunchKernel(f, grid_x, grid_y, grid_z, block_x, block_y, 1, shared_bytes, stream,
                                       params, nullptr);
  if (r != CUDA_SUCCESS) fail_launch(r, device, f, grid_x, grid_y, grid_z, block_x, block_y, shared_bytes);
}

int max_potential_block_size(int device, CUfunction f, int* min_grid) {
  ScopedContext ctx(device);
  int grid = 0, block = 0;
  CU_CALL(cuOccupancyMaxPotentialBlockSize, &grid, &block, f, nullptr, 0, 0);
  if (min_grid) *min_grid = grid;
  return block;
}

int max_active_blocks_per_sm(int device, CUfunction f, int block) {
  ScopedContext ctx(device);
  int n = 0;
  CU_CALL(cuOccupancyMaxActiveBlocksPerMultiprocessor, &n, f, block, 0);
  return n;
}

}  // namespace cujit

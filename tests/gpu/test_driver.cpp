// NVRTC + driver end to end on a real GPU: compile, load, launch, check.
#include <cmath>
#include <cstdint>
#include <algorithm>
#include <cstring>
#include <mutex>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "catch.hpp"
#include "gpu/compile.hpp"
#include "cujit/error.hpp"
#include "core/driver.hpp"

using namespace cujit;

namespace {

const char* kTiny =
    "extern \"C\" __global__ void k(float* y, const float* x, int n)"
    "{int i=blockIdx.x*blockDim.x+threadIdx.x; if(i<n) y[i]=sinf(x[i])*5.0f;}";

// Distance in units in the last place between two finite floats.
std::int64_t ulp_distance(float a, float b) {
  auto key = [](float f) {
    std::int32_t i;
    std::memcpy(&i, &f, sizeof i);
    return i < 0 ? std::int64_t(INT32_MIN) - i : std::int64_t(i);
  };
  std::int64_t d = key(a) - key(b);
  return d < 0 ? -d : d;
}

const CompiledKernel& tiny_for(int device) {
  static std::vector<CompiledKernel> by_arch(2000);
  static std::mutex mu;
  std::lock_guard<std::mutex> lock(mu);
  int arch = cap_arch(device_info(device).arch());
  CompiledKernel& k = by_arch[static_cast<std::size_t>(arch)];
  if (k.cubin.empty()) {
    CompileOptions opt;
    opt.arch = arch;
    k = compile_cuda(kTiny, "tiny", opt);
  }
  return k;
}

std::string tiny_key(int device) { return "test-tiny-" + tiny_for(device).target; }

// Runs the tiny kernel on `n` floats on `device` and checks every output.
void run_tiny(int device, int n, CUstream stream) {
  CUfunction f = get_function(device, tiny_key(device), select_image(tiny_for(device),
                                                                     device_info(device).arch()),
                              "k");
  std::mt19937 rng(1234u + static_cast<unsigned>(device));
  std::uniform_real_distribution<float> dist(-100.0f, 100.0f);
  std::vector<float> x(static_cast<std::size_t>(n));
  for (float& v : x) v = dist(rng);
  std::size_t bytes = x.size() * sizeof(float);

  DeviceBuffer dx(device, bytes), dy(device, bytes);
  dx.upload(x.data(), bytes, stream);
  dy.fill_bytes(0xff, stream);  // NaN everywhere: an element the kernel skips cannot pass
  CUdeviceptr px = dx.ptr(), py = dy.ptr();
  void* params[] = {&py, &px, &n};
  int block = max_potential_block_size(device, f);
  REQUIRE(block > 0);
  unsigned grid = static_cast<unsigned>((n + block - 1) / block);
  launch(device, f, grid, static_cast<unsigned>(block), params, stream);
  std::vector<float> y(x.size());
  dy.download(y.data(), bytes, stream);
  synchronize(device, stream);

  std::int64_t worst = 0;
  std::size_t bad = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    float want = static_cast<float>(std::sin(static_cast<double>(x[i])) * 5.0);
    if (!std::isfinite(y[i]) || ulp_distance(y[i], want) > 4) {
      if (bad++ < 5) UNSCOPED_INFO("x[" << i << "]=" << x[i] << " got " << y[i] << " want " << want);
      continue;
    }
    worst = std::max(worst, ulp_distance(y[i], want));
  }
  CHECK(bad == 0);
  CHECK(worst <= 4);
}

}  // namespace

TEST_CASE("devices are listed with sane properties") {
  int n = device_count();
  REQUIRE(n >= 1);
  for (int d = 0; d < n; ++d) {
    const DeviceInfo& info = device_info(d);
    CAPTURE(d, info.name);
    CHECK(info.ordinal == d);
    CHECK_FALSE(info.name.empty());
    CHECK(info.sm_count > 0);
    CHECK(info.arch() >= 50);
    CHECK(info.warp_size == 32);
    CHECK(info.max_threads_per_block >= 1024);
    CHECK(info.total_memory > 0);
    CHECK(primary_context(d) != nullptr);
    CHECK(primary_context(d) == primary_context(d));
  }
  CHECK(driver_version() >= 11030);
  try {
    device_info(n);
    FAIL("no throw");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Device);
    CHECK(std::string(e.what()).rfind("CUDA device " + std::to_string(n) + " does not exist", 0) == 0);
  }
}

TEST_CASE("the tiny kernel computes sin(x)*5 within 4 ulp on 1<<20 floats") {
  run_tiny(0, 1 << 20, nullptr);
}

TEST_CASE("the tiny kernel runs on a caller's stream with async copies") {
  Stream s(0);
  Event start(0), stop(0);
  start.record(s.get());
  run_tiny(0, 100003, s.get());
  stop.record(s.get());
  stop.synchronize();
  CHECK(stop.elapsed_ms_since(start) >= 0.0f);
}

TEST_CASE("a kernel used on every device loads once per device") {
  int n = device_count();
  for (int d = 0; d < n; ++d) {
    CAPTURE(d);
    const std::string key = "test-once-" + tiny_for(d).target;
    const std::string& image = select_image(tiny_for(d), device_info(d).arch());
    std::size_t before = module_loads(d);
    CUfunction f1 = get_function(d, key, image, "k");
    CUfunction f2 = get_function(d, key, image, "k");
    CHECK(f1 == f2);
    CHECK(module_loads(d) == before + 1);
    run_tiny(d, 4099, nullptr);
  }
  // Each device got its own load (devices with one arch share the key).
  for (int d = 0; d < n; ++d) CHECK(module_loads(d) >= 1);
}

TEST_CASE("threads racing for a new kernel load its module once") {
  const CompiledKernel& k = tiny_for(0);
  const std::string& image = select_image(k, device_info(0).arch());
  const std::string key = "test-race-" + k.target;
  std::size_t before = module_loads(0);
  std::vector<CUfunction> got(16, nullptr);
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < got.size(); ++t)
    threads.emplace_back([&, t] { got[t] = get_function(0, key, image, "k"); });
  for (auto& t : threads) t.join();
  CHECK(module_loads(0) == before + 1);
  for (CUfunction f : got) CHECK(f == got[0]);
}

TEST_CASE("the PTX of a kernel loads through the driver's JIT") {
  const CompiledKernel& k = tiny_for(0);
  CUfunction f = get_function(0, "test-ptx-" + k.target, k.ptx, "k");
  CHECK(f != nullptr);
}

TEST_CASE("driver errors name the call, the error and its text") {
  CHECK_THROWS_WITH(cu_check(CUDA_ERROR_INVALID_IMAGE, "cuModuleLoadData"),
                    "cuModuleLoadData failed: CUDA_ERROR_INVALID_IMAGE (device kernel image is "
                    "invalid)");

  std::string bad_cubin = std::string("\x7f" "ELF") + std::string(252, '\x01');
  try {
    get_function(0, "test-bad-cubin", bad_cubin, "k");
    FAIL("no throw");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Device);
    std::string m = e.what();
    CAPTURE(m);
    CHECK(m.rfind("cuModuleLoadData failed: CUDA_ERROR_", 0) == 0);
    CHECK(m.find("kernel 'k' on device 0 (" + device_info(0).name) != std::string::npos);
  }

  try {
    get_function(0, "test-bad-ptx", "this is not PTX", "k");
    FAIL("no throw");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Device);
    CHECK(std::string(e.what()).rfind("cuModuleLoadDataEx failed: CUDA_ERROR_", 0) == 0);
  }

  const CompiledKernel& k = tiny_for(0);
  try {
    get_function(0, tiny_key(0), select_image(k, device_info(0).arch()), "no_such_kernel");
    FAIL("no throw");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Device);
    CHECK(std::string(e.what()).rfind(
              "cuModuleGetFunction failed: CUDA_ERROR_NOT_FOUND (named symbol not found) "
              "looking up kernel 'no_such_kernel' on device 0",
              0) == 0);
  }
}

TEST_CASE("pointer_info tells device memory from host memory") {
  DeviceBuffer b(0, 256);
  PointerInfo p = pointer_info(b.data());
  CHECK(p.kind == PointerInfo::Device);
  CHECK(p.device == 0);
  int on_stack = 0;
  // Plain host memory is Unregistered, or Host where the driver maps all of
  // it (HMM, ATS): never device memory.
  PointerInfo h = pointer_info(&on_stack);
  CHECK((h.kind == PointerInfo::Unregistered || h.kind == PointerInfo::Host));
}

TEST_CASE("device buffers copy both ways and refuse overruns") {
  std::vector<std::uint8_t> h(1000), back(1000, 0);
  for (std::size_t i = 0; i < h.size(); ++i) h[i] = static_cast<std::uint8_t>(i * 7);
  DeviceBuffer a(0, h.size()), b(0, h.size());
  a.upload(h.data(), h.size());
  memcpy_dtod(0, b.ptr(), a.ptr(), h.size());
  b.download(back.data(), back.size());
  CHECK(back == h);
  CHECK_THROWS_AS(a.upload(h.data(), h.size() + 1), Error);
  DeviceBuffer moved = std::move(a);
  CHECK(a.ptr() == 0);
  CHECK(moved.size() == h.size());
}

// The driver layer on a machine without a GPU (CI): nothing may crash, every
// GPU call must say clearly why it cannot run. On a GPU machine the
// no-device checks skip themselves; tests/gpu covers that case.
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>

#include "catch.hpp"
#include "gpu/compile.hpp"
#include "cujit/error.hpp"
#include "cujit/array.hpp"
#include "cujit/elementwise.hpp"
#include "cujit/evaluate.hpp"
#include "core/driver.hpp"

using namespace cujit;

namespace {

bool starts_with(const std::string& s, const std::string& prefix) {
  return s.rfind(prefix, 0) == 0;
}

}  // namespace

TEST_CASE("without a GPU, gpu_available is false and GPU calls throw a clear Device error") {
  if (gpu_available()) {
    WARN("a CUDA device is present: the no-GPU checks are skipped");
    SUCCEED();
    return;
  }
  std::string reason = gpu_unavailable_reason();
  CAPTURE(reason);
  // No libcuda at all (the usual CI case), or the toolkit's stub in its place.
  const std::string tail =
      ". cujit needs an NVIDIA driver for GPU work; CPU paths work without it.";
  bool no_driver = starts_with(reason, "no CUDA driver: ") && reason.size() > tail.size() &&
                   reason.compare(reason.size() - tail.size(), tail.size(), tail) == 0;
  bool no_device = starts_with(reason, "no CUDA device found");
  CHECK((no_driver || no_device));

  auto expect_device_error = [&](auto&& call) {
    try {
      call();
      FAIL("no throw");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::Device);
      CHECK(std::string(e.what()) == reason);
    }
  };
  expect_device_error([] { driver(); });
  expect_device_error([] { device_count(); });
  expect_device_error([] { device_info(0); });
  expect_device_error([] { DeviceBuffer b(0, 16); });
  expect_device_error([] { get_function(0, "key", "\x7f" "ELF", "k"); });
  expect_device_error([] { pointer_info(nullptr); });
  // Asking twice gives the same answer: the failed load is remembered.
  CHECK_FALSE(gpu_available());
  CHECK(gpu_unavailable_reason() == reason);
}

TEST_CASE("a driver library that cannot be loaded is named with dlerror's reason") {
  try {
    detail::open_driver_library("libcujit-no-such-driver.so.1");
    FAIL("no throw");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Device);
    CHECK(std::string(e.what()) ==
          "no CUDA driver: libcujit-no-such-driver.so.1 could not be loaded "
          "(libcujit-no-such-driver.so.1: cannot open shared object file: No such file or "
          "directory). cujit needs an NVIDIA driver for GPU work; CPU paths work without it.");
  }
}

TEST_CASE("cu_check passes success and names the failing call") {
  CHECK_NOTHROW(cu_check(CUDA_SUCCESS, "cuInit"));
  try {
    cu_check(CUDA_ERROR_INVALID_IMAGE, "cuModuleLoadData");
    FAIL("no throw");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Device);
    std::string m = e.what();
    // Named by the driver when one is loaded, by number otherwise.
    bool named = m == "cuModuleLoadData failed: CUDA_ERROR_INVALID_IMAGE (device kernel image "
                      "is invalid)";
    bool numbered = m == "cuModuleLoadData failed: CUDA error 200";
    CAPTURE(m);
    CHECK((named || numbered));
  }
}

TEST_CASE("probing a missing driver library gives the no-driver message") {
  gpu_available();  // the process-wide driver loads first (see probe_driver)
  CHECK(detail::probe_driver("libcujit-no-such-driver.so.1") ==
        "no CUDA driver: libcujit-no-such-driver.so.1 could not be loaded "
        "(libcujit-no-such-driver.so.1: cannot open shared object file: No such file or "
        "directory). cujit needs an NVIDIA driver for GPU work; CPU paths work without it.");
}

TEST_CASE("the toolkit's stub libcuda is recognised as no driver") {
  gpu_available();
  std::string stub;
  for (const auto& inc : cuda_include_dirs())
    for (const char* rel : {"/../lib64/stubs/libcuda.so", "/../lib/stubs/libcuda.so"})
      if (stub.empty() && std::ifstream(inc + rel).good()) stub = inc + rel;
  if (stub.empty()) {
    WARN("no stub libcuda.so beside the CUDA headers: skipped");
    return;
  }
  std::string m = detail::probe_driver(stub.c_str());
  CAPTURE(stub, m);
  CHECK(starts_with(m, "no CUDA driver: "));
  CHECK(m.find(" is the CUDA toolkit's stub library, not an NVIDIA driver (is a stubs folder "
               "on LD_LIBRARY_PATH?). cujit needs an NVIDIA driver for GPU work; CPU paths "
               "work without it.") != std::string::npos);
}

// Issue 13: every way in to the GPU ends in the same Device error (exit 4)
// when there is no driver or no device, never in a crash.
TEST_CASE("without a GPU, the API's GPU paths fail with the same Device error") {
  if (gpu_available()) {
    WARN("a CUDA device is present: the no-GPU checks are skipped");
    return;
  }
  const std::string reason = gpu_unavailable_reason();
  HostArray x(DType::Float32, {4});
  std::memset(x.data(), 0, x.nbytes());
  // A view that claims to be device memory (as from a DLPack kDLCUDA tensor).
  ArrayView on_gpu = x.view();
  on_gpu.device = Device::cuda(0);
  auto expect_device_error = [&](const char* what, auto&& call) {
    CAPTURE(what);
    try {
      call();
      FAIL("no throw");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::Device);
      CHECK(e.exit_code() == 4);
      CHECK(std::string(e.what()).find(reason) != std::string::npos);
    }
  };
  expect_device_error("evaluate on device 0", [&] {
    EvaluateOptions o;
    o.device = Device::cuda(0);
    evaluate("out = x*5", {{"x", x}}, o);
  });
  expect_device_error("evaluate with a device input", [&] { evaluate("out = x*5", {{"x", on_gpu}}); });
  expect_device_error("ElementwiseKernel with a device input", [&] {
    ElementwiseKernel k("float32 x", "float32 y", "y = x * 5", "times5");
    k(on_gpu);
  });
  expect_device_error("Array::copy_of to device 0", [&] { Array::copy_of(x.view(), Device::cuda(0)); });
  expect_device_error("Array::copy_of from device 0", [&] { Array::copy_of(on_gpu, Device::cpu()); });
  expect_device_error("Array::empty on device 0", [&] { Array::empty(DType::Float32, {4}, Device::cuda(0)); });
}

// A driver that is there but has no device (tests/fake_driver): the message
// says so, distinct from a missing driver. Loaded by path, beside whatever
// driver this process uses.
TEST_CASE("a driver without a device gives 'no CUDA device found', a failing cuInit names its error") {
#ifndef CUJIT_FAKE_LIBCUDA
  FAIL("CUJIT_FAKE_LIBCUDA is not defined: tests/fake_driver.cmake was not included");
#else
  gpu_available();  // the process-wide driver loads first (see probe_driver)
  const char* visible = std::getenv("CUDA_VISIBLE_DEVICES");
  const std::string note = visible ? std::string(" (CUDA_VISIBLE_DEVICES=") + visible + ")" : "";
  struct Row {
    const char* mode;
    std::string message;
  };
  const Row rows[] = {
      {"no-device", "no CUDA device found" + note},
      {"zero-devices", "no CUDA device found" + note},
      {"init-error", "the CUDA driver cannot be used: cuInit failed: CUDA_ERROR_UNKNOWN (unknown error)"},
      {"oom", ""},  // one device: the driver loads; allocations fail (tests/fake_driver/nodevice_test.sh)
  };
  for (const Row& r : rows) {
    CAPTURE(r.mode);
    ::setenv("CUJIT_FAKE_CUDA", r.mode, 1);
    CHECK(detail::probe_driver(CUJIT_FAKE_LIBCUDA) == r.message);
  }
  ::unsetenv("CUJIT_FAKE_CUDA");
#endif
}

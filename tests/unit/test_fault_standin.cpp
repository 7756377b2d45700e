// A kernel that faults, played by the stand-in driver (tests/fake_driver) in a
// process of its own (CTest entries fault_standin, launch_oom_standin:
// LD_LIBRARY_PATH reaches it as libcuda.so.1): the fault is a Device error naming
// the kernel and its launch, every later GPU call says the context is lost and
// how to recover, at once, and the CPU keeps working. A real fault on a GPU is
// tests/gpu/test_fault_gpu.cpp. Hidden from `unit`: the real driver must not be
// told to fault.
#include <chrono>
#include <cstdlib>
#include <string>

#include "catch.hpp"
#include "cujit/elementwise.hpp"
#include "cujit/error.hpp"
#include "cujit/evaluate.hpp"
#include "unit/error_of.hpp"

using namespace cujit;
using test::error_of;

namespace {

std::string fake_mode() {
  const char* m = std::getenv("CUJIT_FAKE_CUDA");
  return m ? m : "";
}

HostArray ramp(std::int64_t n) {
  HostArray x(DType::Float32, {n});
  for (std::int64_t k = 0; k < n; ++k) x.as<float>()[k] = static_cast<float>(k);
  return x;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

}  // namespace

TEST_CASE("stand-in driver: a faulting kernel is named with its launch; later calls say the context is lost",
          "[.][fake_fault]") {
  REQUIRE(fake_mode() == "fault");
  HostArray x = ramp(1000);
  Array dx = Array::copy_of(x.view(), Device::cuda(0));
  ElementwiseKernel k("T x", "T y", "y = x * 2", "fault_probe");
  // The launch itself succeeds (kernels run asynchronously); the fault shows
  // at the copy back.
  Array y = k(dx)[0];
  const std::string first = error_of([&] { y.to_host(); }, ErrorCode::Device);
  CAPTURE(first);
  CHECK(contains(first, "a kernel faulted on the GPU: CUDA_ERROR_ILLEGAL_ADDRESS (an illegal memory access was "
                        "encountered) (reported by cuMemcpyDtoH); the last launch before it: kernel 'cujit_fault_probe"));
  CHECK(contains(first, "' on device 0, grid "));
  CHECK(contains(first, "The GPU context is lost: every later GPU call in this process fails; restart the process "
                        "to use the GPU again (CPU paths still work)"));

  // Every later GPU call fails at once with the first report.
  const auto t0 = std::chrono::steady_clock::now();
  const std::string later = error_of([&] { k(dx); }, ErrorCode::Device);
  CAPTURE(later);
  CHECK(contains(later, "failed: the GPU context was lost earlier, when a kernel faulted: CUDA_ERROR_ILLEGAL_ADDRESS"));
  CHECK(contains(later, "kernel 'cujit_fault_probe"));
  CHECK(contains(later, "Restart the process to use the GPU again (CPU paths still work)"));
  const std::string alloc = error_of([&] { Array::empty(DType::Float32, {10}, Device::cuda(0)); }, ErrorCode::Device);
  CHECK(contains(alloc, "cuMemAlloc failed: the GPU context was lost earlier"));
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(10));

  // The CPU evaluator is not affected.
  auto cpu = evaluate("out = x * 2", {{"x", x}});
  CHECK(cpu[0].array.as<float>()[999] == 1998.0f);
}

TEST_CASE("stand-in driver: out of memory at a launch is a Device error with the kernel, grid and memory",
          "[.][fake_launch_oom]") {
  REQUIRE(fake_mode() == "launch-oom");
  HostArray x = ramp(1000);
  Array dx = Array::copy_of(x.view(), Device::cuda(0));
  ElementwiseKernel k("T x", "T y", "y = x * 2", "oom_probe");
  const std::string e = error_of([&] { k(dx); }, ErrorCode::Device);
  CAPTURE(e);
  CHECK(contains(e, "cuLaunchKernel failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory) launching kernel 'cujit_oom_probe"));
  CHECK(contains(e, "' on device 0, grid "));
  CHECK(contains(e, " bytes of dynamic shared memory (805306368 bytes of device memory free of 1073741824)"));
  // Not a lost context: the next call is refused the same way, not as "lost".
  const std::string again = error_of([&] { k(dx); }, ErrorCode::Device);
  CHECK(contains(again, "cuLaunchKernel failed: CUDA_ERROR_OUT_OF_MEMORY"));
}

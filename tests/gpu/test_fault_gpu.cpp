// Real faults on a GPU: a raw-CUDA kernel that writes out of bounds, and one
// that traps. Each loses the process's GPU context, so each runs in a CTest
// entry of its own (gpu_fault_write, gpu_fault_trap; hidden from `gpu`): the
// fault is a Device error naming the kernel and its launch, later calls say the
// context is lost and to restart, at once, and the CPU keeps working. An
// allocation larger than the device is a Device error with the sizes.
#include <chrono>
#include <string>

#include "catch.hpp"
#include "cujit/elementwise.hpp"
#include "cujit/error.hpp"
#include "cujit/evaluate.hpp"
#include "gpu_util.hpp"
#include "core/pool.hpp"
#include "unit/error_of.hpp"

using namespace cujit;
using test::error_of;

namespace {

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

HostArray ramp(std::int64_t n) {
  HostArray x(DType::Float32, {n});
  for (std::int64_t k = 0; k < n; ++k) x.as<float>()[k] = static_cast<float>(k);
  return x;
}

// Runs the faulting kernel `name` with `operation`, then checks the reports.
void check_fault(const char* name, const char* operation) {
  ElementwiseOptions o;
  o.raw_cuda = true;
  ElementwiseKernel k("T x, raw T w", "T z", operation, name, o);
  HostArray x = ramp(1 << 16);
  Array dx = Array::copy_of(x.view(), Device::cuda(0));
  const std::string first = error_of(
      [&] {
        Array z = k(dx, dx)[0];
        z.to_host();
      },
      ErrorCode::Device);
  std::printf("first report: %s\n", first.c_str());
  CHECK(first.rfind("a kernel faulted on the GPU: CUDA_ERROR_", 0) == 0);
  CHECK(contains(first, std::string("the last launch before it: kernel 'cujit_") + name));
  CHECK(contains(first, "' on device 0, grid "));
  CHECK(contains(first, "The GPU context is lost: every later GPU call in this process fails; restart the process "
                        "to use the GPU again (CPU paths still work)"));
  const auto t0 = std::chrono::steady_clock::now();
  const std::string later = error_of([&] { k(dx, dx)[0].to_host(); }, ErrorCode::Device);
  std::printf("later call: %s\n", later.c_str());
  CHECK(contains(later, "failed: the GPU context was lost earlier, when a kernel faulted: CUDA_ERROR_"));
  CHECK(contains(later, std::string("kernel 'cujit_") + name));
  const std::string other = error_of([&] { evaluate("out = x + 1", {{"x", dx}}); }, ErrorCode::Device);
  CHECK(contains(other, "the GPU context was lost earlier"));
  CHECK(std::chrono::steady_clock::now() - t0 < std::chrono::seconds(30));
  auto cpu = evaluate("out = x * 2", {{"x", x}});
  CHECK(cpu[0].array.as<float>()[7] == 14.0f);
}

}  // namespace

TEST_CASE("a raw-CUDA kernel writing out of bounds: reported with its launch, the context lost",
          "[.][real_fault_write]") {
  // 2^40 elements past the end: far outside any allocation.
  check_fault("oob_write", "const_cast<T*>(w)[i + (1LL << 40)] = x; z = x;");
}

TEST_CASE("a raw-CUDA kernel that traps: reported with its launch, the context lost", "[.][real_fault_trap]") {
  check_fault("trapping", "if (i == 5) __trap(); z = x;");
}

TEST_CASE("an allocation larger than the device: a Device error with the sizes", "[gpu][oom]") {
  const std::int64_t n = std::int64_t{1} << 40;  // 4 TiB of float32
  const std::string e = error_of([&] { Array::empty(DType::Float32, {n}, Device::cuda(0)); }, ErrorCode::Device);
  CAPTURE(e);
  // From the memory pool after trimming it, or from cuMemAlloc with CUJIT_POOL=0.
  CHECK(e.rfind(pool_in_use(0) ? "out of memory on device 0: cuMemAllocFromPoolAsync failed: CUDA_ERROR_OUT_OF_MEMORY "
                                 "(out of memory) allocating 4398046511104 bytes from cujit's memory pool, which holds "
                               : "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory) allocating 4398046511104 "
                                 "bytes on device 0 (",
                0) == 0);
  CHECK(contains(e, " bytes free of "));
  // The context is not lost: the device still works.
  HostArray x = ramp(100);
  auto y = evaluate("out = x * 2", {{"x", Array::copy_of(x.view(), Device::cuda(0))}});
  CHECK(y[0].array.to_host().as<float>()[99] == 198.0f);
}

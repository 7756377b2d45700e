// Issue 13 on a GPU: device memory running out, and a process that sees no
// device, both end in a clear Device error (exit 4) with nothing leaked and
// the device still usable afterwards.
#include <sys/wait.h>

#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "catch.hpp"
#include "cujit/array.hpp"
#include "cujit/error.hpp"
#include "cujit/evaluate.hpp"
#include "core/driver.hpp"
#include "core/pool.hpp"
#include "gpu_util.hpp"

using namespace cujit;

namespace {

struct MemInfo {
  std::size_t free = 0, total = 0;
};

MemInfo mem_info(int device) {
  ScopedContext ctx(device);
  MemInfo m;
  cu_check(driver().cuMemGetInfo(&m.free, &m.total), "cuMemGetInfo");
  return m;
}

bool contains(const std::string& s, const std::string& part) { return s.find(part) != std::string::npos; }

// Runs a shell command; its exit status and its stdout+stderr.
std::pair<int, std::string> run(const std::string& cmd) { return gputest::shell_output(cmd + " 2>&1"); }

}  // namespace

TEST_CASE("device memory exhausted through the Array API: a clear Device error, nothing leaked", "[memory]") {
  const int dev = 0;
  // Warm up: the context, the copy kernels and the evaluator's caches take
  // memory once; measure after that.
  {
    Array warm = Array::empty(DType::Float32, {1024}, Device::cuda(dev));
    (void)evaluate("out = x*2", {{"x", warm}});
  }
  const MemInfo before = mem_info(dev);
  INFO("device 0: " << before.free << " of " << before.total << " bytes free");

  // One allocation larger than the device.
  try {
    Array::empty(DType::Float64, {static_cast<std::int64_t>(before.total / 8 * 2)}, Device::cuda(dev));
    FAIL("no error for an allocation twice the device's memory");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Device);
    CHECK(e.exit_code() == 4);
    // From the memory pool, or from cuMemAlloc with CUJIT_POOL=0.
    CHECK(contains(e.what(), pool_in_use(dev) ? "cuMemAllocFromPoolAsync failed: CUDA_ERROR_OUT_OF_MEMORY"
                                              : "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY"));
    CHECK(contains(e.what(), "on device 0"));
  }

  // Many allocations until the memory runs out.
  std::vector<Array> held;
  const std::int64_t chunk = static_cast<std::int64_t>(before.total / 16);  // bytes, as uint8 elements
  std::string error;
  for (int k = 0; k < 64 && error.empty(); ++k) {
    try {
      held.push_back(Array::empty(DType::UInt8, {chunk}, Device::cuda(dev)));
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::Device);
      error = e.what();
    }
  }
  INFO("held " << held.size() << " chunks of " << chunk << " bytes; error: " << error);
  REQUIRE_FALSE(error.empty());
  CHECK(contains(error, "CUDA_ERROR_OUT_OF_MEMORY"));

  // With the device full, a computation that needs an output fails the same
  // way and leaves nothing behind.
  try {
    EvaluateOptions o;
    o.device = Device::cuda(dev);
    o.shape = Shape{chunk};
    evaluate("out = a * 2.0", {{"a", 1.5}}, o);
    // It may fit in the last gap; that is no failure.
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Device);
    CHECK(contains(e.what(), "CUDA_ERROR_OUT_OF_MEMORY"));
  }

  held.clear();
  trim_pool();  // the pool keeps freed memory for reuse until trimmed (docs/runtime.md)
  const MemInfo after = mem_info(dev);
  INFO("after freeing: " << after.free << " bytes free (before: " << before.free << ")");
  // Everything allocated came back (64 MiB of slack for the driver's own pools).
  CHECK(after.free + (std::size_t{64} << 20) >= before.free);

  // The device still works.
  std::vector<NamedArray> r = evaluate("out = x*2", {{"x", Array::empty(DType::Float32, {16}, Device::cuda(dev))}});
  CHECK(r.size() == 1);
}

TEST_CASE("a process that sees no device: jitrun --device 0 exits 4 with 'no CUDA device found'") {
  const std::string jitrun = CUJIT_JITRUN;
  auto [code, out] = run("CUDA_VISIBLE_DEVICES= '" + jitrun + "' --device 0 -i 'x=arange(4)' 'out = x*5'");
  CHECK(code == 4);
  CHECK(out.rfind("jitrun: ", 0) == 0);
  CHECK(contains(out, "no CUDA device found (CUDA_VISIBLE_DEVICES=)"));
  // --device auto falls back to the CPU with a notice.
  auto [code2, out2] = run("CUDA_VISIBLE_DEVICES= '" + jitrun + "' --print -i 'x=arange(4)' 'out = x*5'");
  CHECK(code2 == 0);
  CHECK(contains(out2, "out = [ 0.  5. 10. 15.]"));
  CHECK(contains(out2, "no usable GPU (no CUDA device found (CUDA_VISIBLE_DEVICES=)); running on the CPU"));
}

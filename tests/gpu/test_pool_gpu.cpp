// The memory pool on a GPU (src/core/pool.hpp): calls that allocate their
// outputs, many times, on the legacy stream and on a non-blocking stream of
// the test's, give the CPU evaluator's results and leave the pool's used
// bytes where they were; a trim returns what is unused; a free ordered after
// a slow kernel on another stream is not reused under it; out of memory is a
// Device error with the sizes. The outputs are poisoned before each call the
// only way new memory can be: 0xFF blocks of their size freed into the pool,
// which the call's allocation then reuses. The pool's logic without a GPU:
// tests/unit/test_pool_standin.cpp.
#include <fmt/format.h>

#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "core/pool.hpp"
#include "skip.hpp"
#include "cujit/elementwise.hpp"
#include "cujit/error.hpp"
#include "cujit/evaluate.hpp"
#include "cujit/pool.hpp"
#include "gpu_util.hpp"
#include "unit/error_of.hpp"
#include "unit/reference.hpp"

using namespace cujit;
using namespace cujit::gputest;

namespace {

HostArray random_f32(std::int64_t n, std::uint64_t salt) {
  HostArray a(DType::Float32, {n});
  std::mt19937_64 rng(run_seed() ^ salt);
  std::uniform_real_distribution<float> d(-10.0f, 10.0f);
  for (std::int64_t k = 0; k < n; ++k) a.as<float>()[k] = d(rng);
  return a;
}

// The CPU evaluator's result, copied into a HostArray the comparisons take.
HostArray reference(const std::string& program, const HostArray& x, const HostArray& y) {
  EvaluateOptions o;
  o.device = Device::cpu();
  Array r = evaluate(program, {{"x", x.view()}, {"y", y.view()}}, o)[0].array;
  HostArray h(r.dtype(), r.shape());
  std::memcpy(h.data(), r.data(), r.nbytes());
  return h;
}

void require_same(const Array& got_dev, const HostArray& want) {
  Array got = got_dev.to_host();
  REQUIRE(got.shape() == want.shape());
  std::string why;
  const bool ok = ref::values_match(want.dtype(), got.data(), want.data(), want.size(), 0, &why);
  INFO(why);
  REQUIRE(ok);
}

// Blocks of `bytes` filled with 0xFF and freed: the next allocations of that
// size reuse them, so a kernel that skipped an element would leave 0xFF there.
void poison_pool(std::size_t bytes, int blocks = 2) {
  std::vector<Array> p;
  for (int k = 0; k < blocks; ++k) {
    p.push_back(Array::empty(DType::UInt8, {static_cast<std::int64_t>(bytes)}, Device::cuda(0)));
    poison(p.back().view(), bytes);
  }
}

}  // namespace

TEST_CASE("pool: 2000 calls that allocate their outputs, on two streams, leave the used bytes where they were",
          "[pool]") {
  if (!pool_in_use(0)) {
    WARN("CUJIT_POOL=0 or no memory pools on this device: the allocation counts are not checked");
  }
  const std::int64_t n = (std::int64_t{1} << 20) + 3;  // a tail past every vector width
  const HostArray hx = random_f32(n, 1), hy = random_f32(n, 2);
  const HostArray want = reference("z = x * y + 5", hx, hy);
  Array x = Array::copy_of(hx.view(), Device::cuda(0)), y = Array::copy_of(hy.view(), Device::cuda(0));
  ElementwiseKernel k("T x, T y", "T z", "z = x * y + 5", "pool_gpu");
  synchronize(0);
  const PoolStats base = pool_stats(0);
  const std::size_t bytes = static_cast<std::size_t>(n) * 4;

  for (int i = 0; i < 1000; ++i) {
    if (i % 100 == 0) poison_pool(bytes);
    Array z = k(x, y)[0];
    if (i % 100 == 0) require_same(z, want);
  }
  Stream st(0);
  CallOptions on_stream;
  on_stream.stream = st.get();
  std::vector<Array> kept;
  for (int i = 0; i < 1000; ++i) {
    if (i % 100 == 0) {
      st.synchronize();
      poison_pool(bytes);
    }
    Array z = k.call({x, y}, on_stream)[0];  // dropped at once unless kept: its free waits for the stream
    if (i % 100 == 0) kept.push_back(z);
  }
  st.synchronize();
  for (const Array& z : kept) require_same(z, want);
  kept.clear();
  synchronize(0);
  const PoolStats after = pool_stats(0);
  if (base.active) {
    CHECK(after.used_bytes == base.used_bytes);
    // A few blocks of the outputs' size in all, whatever the number of calls.
    CHECK(after.reserved_bytes <= base.reserved_bytes + 16 * bytes + (std::size_t{64} << 20));
  }
}

TEST_CASE("pool: a free ordered after a slow kernel on another stream is not reused under it", "[pool]") {
  const std::int64_t n = std::int64_t{1} << 24;
  const HostArray hx = random_f32(n, 3), hy = random_f32(n, 4);
  const HostArray want = reference("z = x - y", hx, hy);
  Array x = Array::copy_of(hx.view(), Device::cuda(0)), y = Array::copy_of(hy.view(), Device::cuda(0));
  // Much slower than the subtraction that follows it on the legacy stream.
  ElementwiseKernel slow("T x", "T z", "z = sin(sin(sin(sin(sin(sin(sin(sin(x))))))))", "pool_slow");
  ElementwiseKernel sub("T x, T y", "T z", "z = x - y", "pool_sub");
  Stream st(0);
  CallOptions on_stream;
  on_stream.stream = st.get();
  for (int round = 0; round < 5; ++round) {
    slow.call({x}, on_stream);  // its output is freed at once, the kernel still writing it
    Array z = sub(x, y)[0];     // the legacy stream's new array may take the same block
    st.synchronize();
    require_same(z, want);
  }
}

TEST_CASE("pool: trim_pool returns the unused memory; out of memory is a Device error with the sizes",
          "[pool][memory]") {
  if (!pool_in_use(0)) CUJIT_SKIP("CUJIT_POOL=0 or no memory pools on this device: nothing to trim");
  const std::size_t big = std::size_t{256} << 20;
  { Array a = Array::empty(DType::UInt8, {static_cast<std::int64_t>(big)}, Device::cuda(0)); }
  synchronize(0);
  const PoolStats held = pool_stats(0);
  CHECK(held.reserved_bytes >= held.used_bytes + big);  // kept: the threshold is unbounded by default
  trim_pool();
  const PoolStats trimmed = pool_stats(0);
  CHECK(trimmed.reserved_bytes + big <= held.reserved_bytes);
  CHECK(trimmed.used_bytes == held.used_bytes);

  const std::uint64_t trims = trimmed.oom_trims;
  const auto total = static_cast<std::int64_t>(device_info(0).total_memory);
  const std::string e = test::error_of(
      [&] { Array::empty(DType::UInt8, {2 * total}, Device::cuda(0)); }, ErrorCode::Device);
  CAPTURE(e);
  CHECK(e.rfind(fmt::format("out of memory on device 0: cuMemAllocFromPoolAsync failed: CUDA_ERROR_OUT_OF_MEMORY "
                            "(out of memory) allocating {} bytes from cujit's memory pool, which holds ",
                            2 * total),
                0) == 0);
  CHECK(e.find("after trimming it and trying again (") != std::string::npos);
  CHECK(pool_stats(0).oom_trims == trims + 1);
  // The failed request keeps nothing: the device stays usable by other processes.
  CHECK(pool_stats(0).reserved_bytes <= trimmed.reserved_bytes);
  const std::size_t at = e.find("which holds ");
  REQUIRE(at != std::string::npos);
  CHECK(std::stoull(e.substr(at + 12)) <= trimmed.reserved_bytes);
}

// The host pool (src/core/host_pool.hpp): large host arrays reuse the blocks
// of freed ones of about their size, up to the limit, oldest given back
// first; small arrays never enter it; the CPU evaluator's outputs take kept
// blocks and compute the same values. Each test sets the limit it needs and
// puts the process's back when it ends.
#include <cstdint>
#include <cstring>
#include <vector>

#include "catch.hpp"
#include "cpu/eval.hpp"
#include "cujit/array.hpp"
#include "cujit/pool.hpp"

using namespace cujit;

namespace {

constexpr std::int64_t kMiB = std::int64_t{1} << 20;

HostArray bytes_array(std::int64_t bytes) { return HostArray(DType::UInt8, {bytes}); }

// Sets a limit and an empty pool for one test; restores the limit after.
struct PoolScope {
  std::uint64_t before = host_pool_stats().limit;
  explicit PoolScope(std::uint64_t limit) {
    trim_host_pool(0);
    set_host_pool_limit(limit);
  }
  ~PoolScope() {
    trim_host_pool(0);
    set_host_pool_limit(before);
  }
};

}  // namespace

TEST_CASE("host pool: a freed large array's block serves the next of about its size", "[host_pool]") {
  PoolScope scope(std::uint64_t{1} << 30);
  const void* first = nullptr;
  {
    HostArray a = bytes_array(40 * kMiB);
    first = a.data();
    std::memset(a.data(), 7, static_cast<std::size_t>(a.nbytes()));
    CHECK(host_pool_stats().kept_bytes == 0);
  }
  HostPoolStats s = host_pool_stats();
  CHECK(s.kept_bytes == 40 * kMiB);
  CHECK(s.kept_blocks == 1);
  const std::uint64_t reuses = s.reuses;

  // 33 MiB rounds to 34 MiB, at least 80% of the kept 40 MiB: reused.
  HostArray b = bytes_array(33 * kMiB);
  CHECK(b.data() == first);
  CHECK(host_pool_stats().reuses == reuses + 1);
  CHECK(host_pool_stats().kept_bytes == 0);
  CHECK(reinterpret_cast<std::uintptr_t>(b.data()) % (2 * kMiB) == 0);

  // Too small a share of a kept block, and too large: fresh memory.
  HostArray c = bytes_array(100 * kMiB);
  b = HostArray();
  HostArray d = bytes_array(32 * kMiB);  // 32 MiB of a kept 40 MiB: exactly 80%, reused
  CHECK(d.data() == first);
  c = HostArray();
  HostArray e = bytes_array(40 * kMiB);  // 40% of the kept 100 MiB: not reused
  CHECK(host_pool_stats().kept_bytes == 100 * kMiB);

  // Below the pool's size: never kept.
  { HostArray small = bytes_array(64 * 1024); }
  CHECK(host_pool_stats().kept_bytes == 100 * kMiB);
}

TEST_CASE("host pool: arrays from 128 KiB to 32 MiB are kept too, page-aligned, in 64 KiB steps", "[host_pool]") {
  // An aligned allocation of this size was mapped afresh by glibc on every
  // call (its threshold never catches up with memalign's padding).
  PoolScope scope(std::uint64_t{1} << 30);
  const std::uint64_t kept = host_pool_stats().kept_bytes;
  const void* first = nullptr;
  {
    HostArray a = bytes_array(400000);
    first = a.data();
    CHECK(reinterpret_cast<std::uintptr_t>(a.data()) % 4096 == 0);
  }
  CHECK(host_pool_stats().kept_bytes == kept + 448 * 1024);  // 400000 bytes round up to 7 x 64 KiB
  const std::uint64_t reuses = host_pool_stats().reuses;
  HostArray b = bytes_array(400000);
  CHECK(b.data() == first);
  CHECK(host_pool_stats().reuses == reuses + 1);
  b = HostArray();
  HostArray c = bytes_array(128 * 1024);  // 2 x 64 KiB: too small a share of the kept 448 KiB block
  CHECK(c.data() != first);
  { HostArray d = bytes_array(8 * kMiB); }
  CHECK(host_pool_stats().kept_bytes == kept + 448 * 1024 + 8 * kMiB);
}

TEST_CASE("host pool: the limit is kept, the oldest blocks go first, trim and 0 keep none", "[host_pool]") {
  PoolScope scope(std::uint64_t{100} * kMiB);
  const void* newer = nullptr;
  {
    HostArray a = bytes_array(40 * kMiB), b = bytes_array(50 * kMiB), c = bytes_array(48 * kMiB);
    newer = c.data();
    a = HostArray();  // kept: 40
    b = HostArray();  // kept: 40 + 50
  }  // c: 138 > 100, so a's 40 goes; 98 kept
  HostPoolStats s = host_pool_stats();
  CHECK(s.kept_bytes == 98 * kMiB);
  CHECK(s.kept_blocks == 2);
  HostArray d = bytes_array(48 * kMiB);  // the 48 MiB block (best fit) rather than the 50
  CHECK(d.data() == newer);
  d = HostArray();

  { HostArray big = bytes_array(200 * kMiB); }  // larger than the limit: freed at once
  CHECK(host_pool_stats().kept_bytes == 98 * kMiB);

  trim_host_pool(60 * kMiB);  // the older of the two (50) goes
  CHECK(host_pool_stats().kept_bytes == 48 * kMiB);
  set_host_pool_limit(0);
  CHECK(host_pool_stats().kept_bytes == 0);
  { HostArray a = bytes_array(40 * kMiB); }
  CHECK(host_pool_stats().kept_bytes == 0);
  CHECK(host_pool_stats().limit == 0);
}

TEST_CASE("host pool: the CPU evaluator's outputs reuse kept blocks with the same results", "[host_pool]") {
  PoolScope scope(std::uint64_t{1} << 30);
  const std::int64_t n = 10'000'000;  // 40 MB of float32
  HostArray x(DType::Float32, {n});
  for (std::int64_t k = 0; k < n; ++k) x.as<float>()[k] = static_cast<float>(k % 1000) * 0.5f;
  const std::vector<Input> in = {{"x", x.view()}};
  const void* first = nullptr;
  for (int call = 0; call < 3; ++call) {
    const std::uint64_t reuses = host_pool_stats().reuses;
    if (call > 0) {  // poison the kept block: the call must overwrite all of it
      HostArray poison = bytes_array(n * 4);
      CHECK(poison.data() == first);
      std::memset(poison.data(), 0xff, static_cast<std::size_t>(n * 4));
    }
    std::vector<Output> out = evaluate_cpu("out = x*3 + 1", in);
    REQUIRE(out.size() == 1);
    const float* y = out[0].array.as<float>();
    if (call == 0) first = y;
    CHECK(y == first);
    if (call > 0) CHECK(host_pool_stats().reuses == reuses + 2);
    std::int64_t bad = 0;
    for (std::int64_t k = 0; k < n; ++k) bad += y[k] != static_cast<float>(k % 1000) * 0.5f * 3 + 1;
    CHECK(bad == 0);
  }
}

// The memory pool (src/core/pool.hpp) against the stand-in driver
// (tests/fake_driver, mode "pool": 1 GiB that the pool and cuMemAlloc share,
// kernels that do nothing), in processes of their own (CTest entries
// pool_standin and pool_off_standin): what the pool holds after allocations,
// frees, trims and calls, out of memory trimmed and retried, and CUJIT_POOL=0.
// The same on a real GPU, with results checked: tests/gpu/test_pool_gpu.cpp.
// The byte counts CUJIT_POOL_RELEASE takes need no driver and run in `unit`.
#include <dlfcn.h>

#include <cstdint>
#include <cstdlib>
#include <limits>
#include <string>
#include <thread>
#include <vector>

#include "catch.hpp"
#include "core/driver.hpp"
#include "core/pool.hpp"
#include "cujit/elementwise.hpp"
#include "cujit/error.hpp"
#include "cujit/evaluate.hpp"
#include "cujit/pool.hpp"
#include "unit/error_of.hpp"

using namespace cujit;
using test::error_of;

namespace {

constexpr std::uint64_t kMiB = std::uint64_t{1} << 20;
constexpr std::uint64_t kAll = std::numeric_limits<std::uint64_t>::max();

std::string fake_mode() {
  const char* m = std::getenv("CUJIT_FAKE_CUDA");
  return m ? m : "";
}

Array device_bytes(std::uint64_t bytes) {
  return Array::empty(DType::UInt8, {static_cast<std::int64_t>(bytes)}, Device::cuda(0));
}

// A counter of the stand-in driver's (tests/fake_driver/fake_libcuda.cpp).
int fake_count(const char* name) {
  void* lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);
  REQUIRE(lib);
  auto fn = reinterpret_cast<int (*)()>(dlsym(lib, name));
  REQUIRE(fn);
  const int n = fn();
  dlclose(lib);
  return n;
}
// Events the stand-in driver made and has not destroyed.
int live_events() { return fake_count("cujit_fake_live_events"); }
// Its cuMemAllocFromPoolAsync calls.
int pool_allocs() { return fake_count("cujit_fake_pool_allocs"); }

}  // namespace

TEST_CASE("CUJIT_POOL_RELEASE's byte counts", "[pool]") {
  std::uint64_t b = 0;
  CHECK((parse_pool_bytes("0", b) && b == 0));
  CHECK((parse_pool_bytes("1073741824", b) && b == 1073741824u));
  CHECK((parse_pool_bytes("512K", b) && b == 512 * 1024u));
  CHECK((parse_pool_bytes("3m", b) && b == 3 * kMiB));
  CHECK((parse_pool_bytes("2G", b) && b == 2048 * kMiB));
  CHECK((parse_pool_bytes("max", b) && b == kAll));
  for (const char* bad : {"", "G", "-1", "1.5G", "1 G", "1GB", "12x", "18446744073709551616", "17179869184G"}) {
    CAPTURE(bad);
    CHECK_FALSE(parse_pool_bytes(bad, b));
  }
}

TEST_CASE("stand-in driver: the pool keeps freed memory, reuses it and trims it", "[.][fake_pool]") {
  REQUIRE(fake_mode() == "pool");
  PoolStats before = pool_stats(0);
  CHECK_FALSE(before.active);  // made at the device's first allocation, not by asking
  CHECK(before.release_threshold == kAll);
  {
    Array a = device_bytes(kMiB);
    PoolStats s = pool_stats(0);
    CHECK(s.active);
    CHECK(s.used_bytes == kMiB);
    CHECK(s.reserved_bytes == kMiB);
  }
  synchronize(0);  // a synchronization returns nothing while the threshold is unbounded
  CHECK(pool_stats(0).used_bytes == 0);
  CHECK(pool_stats(0).reserved_bytes == kMiB);
  for (int k = 0; k < 10; ++k) device_bytes(kMiB);  // each one reuses the block
  CHECK(pool_stats(0).reserved_bytes == kMiB);
  CHECK(pool_stats(0).reserved_high_bytes == kMiB);
  trim_pool();
  CHECK(pool_stats(0).reserved_bytes == 0);
}

TEST_CASE("stand-in driver: a release threshold gives back what is above it at a synchronization", "[.][fake_pool]") {
  REQUIRE(fake_mode() == "pool");
  set_pool_release_threshold(kMiB);
  { Array a = device_bytes(kMiB), b = device_bytes(2 * kMiB); }
  CHECK(pool_stats(0).reserved_bytes == 3 * kMiB);
  synchronize(0);
  CHECK(pool_stats(0).reserved_bytes <= kMiB);
  CHECK(pool_stats(0).release_threshold == kMiB);
  // A threshold of 0 keeps no block cached either: each allocation asks the driver.
  set_pool_release_threshold(0);
  const int allocs = pool_allocs();
  for (int k = 0; k < 3; ++k) device_bytes(kMiB);
  CHECK(pool_allocs() == allocs + 3);
  set_pool_release_threshold(kAll);
  for (int k = 0; k < 3; ++k) device_bytes(kMiB);
  CHECK(pool_allocs() == allocs + 4);
  { Array a = device_bytes(kMiB), b = device_bytes(2 * kMiB); }
  trim_pool(2 * kMiB);  // keeps what it is told to
  CHECK(pool_stats(0).reserved_bytes == 2 * kMiB);
  trim_pool();
  CHECK(pool_stats(0).reserved_bytes == 0);
}

TEST_CASE("stand-in driver: out of memory in the pool trims, retries once, then names the sizes", "[.][fake_pool]") {
  REQUIRE(fake_mode() == "pool");
  trim_pool();
  const std::uint64_t trims = pool_stats(0).oom_trims;
  { Array big = device_bytes(600 * kMiB); }
  CHECK(pool_stats(0).reserved_bytes == 600 * kMiB);  // kept, too small for the next one
  {
    Array bigger = device_bytes(700 * kMiB);  // 1300 MiB without the trim: the device has 1024
    CHECK(pool_stats(0).oom_trims == trims + 1);
    CHECK(pool_stats(0).reserved_bytes == 700 * kMiB);
  }
  trim_pool();
  Array held = device_bytes(100 * kMiB);
  const std::string e = error_of([] { device_bytes(2048 * kMiB); }, ErrorCode::Device);
  CHECK(e ==
        "out of memory on device 0: cuMemAllocFromPoolAsync failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory) "
        "allocating 2147483648 bytes from cujit's memory pool, which holds 104857600 bytes, 104857600 of them in "
        "arrays still alive, after trimming it and trying again (968884224 bytes free of 1073741824). Free arrays that "
        "are no longer needed, or use smaller ones");
  CHECK(pool_stats(0).oom_trims == trims + 2);
  CHECK(pool_stats(0).used_bytes == 100 * kMiB);  // the failed request took nothing
}

TEST_CASE("stand-in driver: calls that allocate their outputs leave the pool as they found it", "[.][fake_pool]") {
  REQUIRE(fake_mode() == "pool");
  HostArray hx(DType::Float32, {4096});
  for (int k = 0; k < 4096; ++k) hx.as<float>()[k] = static_cast<float>(k);
  Array x = Array::copy_of(hx.view(), Device::cuda(0));
  ElementwiseKernel k("T x", "T y", "y = x * 2", "pool_probe");
  k(x);  // compiles; the output goes at once
  const PoolStats before = pool_stats(0);
  const std::uint64_t base = before.used_bytes;
  const int events = live_events();
  const int driver_allocs = pool_allocs();
  for (int i = 0; i < 100; ++i) CHECK(k(x)[0].nbytes() == 4096 * 4);
  CHECK(pool_allocs() == driver_allocs);  // every output is the cached block of the one before
  CHECK(pool_stats(0).used_bytes == base);
  CHECK(pool_stats(0).reserved_bytes <= before.reserved_bytes + 4096 * 4);  // the same block again and again

  // On a stream of the caller's: each call orders its stream after the
  // allocations with one event, which the outputs' frees also wait for, and
  // which goes with the last of them. Host inputs are copied for the call.
  Stream st(0);
  CallOptions on_stream;
  on_stream.stream = st.get();
  EvaluateOptions from_host_on_stream;
  from_host_on_stream.device = Device::cuda(0);  // the host input is copied there
  from_host_on_stream.stream = st.get();
  for (int i = 0; i < 20; ++i) {
    OutputArrays out = k.call({x}, on_stream);
    CHECK(live_events() == events + 1);
    NamedArrays from_host = evaluate("y = x * 2", {{"x", hx}}, from_host_on_stream);
    CHECK(live_events() == events + 2);
  }
  CHECK(live_events() == events);
  CHECK(pool_stats(0).used_bytes == base);
  x = Array();
  trim_pool();
  CHECK(pool_stats(0).reserved_bytes == 0);
}

TEST_CASE("stand-in driver: threads allocating and freeing at once leave the pool as they found it", "[.][fake_pool]") {
  REQUIRE(fake_mode() == "pool");
  const PoolStats before = pool_stats(0);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t)
    threads.emplace_back([t] {
      std::vector<Array> held;
      for (int i = 0; i < 2000; ++i) {
        held.push_back(device_bytes(static_cast<std::uint64_t>(4096 * (1 + (i + t) % 3))));
        if (held.size() > 5) held.erase(held.begin());
      }
    });
  for (auto& th : threads) th.join();
  CHECK(pool_stats(0).used_bytes == before.used_bytes);
  trim_pool();
  CHECK(pool_stats(0).reserved_bytes == before.used_bytes);
}

TEST_CASE("stand-in driver: CUJIT_POOL=0 allocates with cuMemAlloc", "[.][fake_pool_off]") {
  REQUIRE(fake_mode() == "pool");
  REQUIRE(std::string(std::getenv("CUJIT_POOL")) == "0");
  {
    Array a = device_bytes(kMiB);
    CHECK_FALSE(pool_stats(0).active);
    CHECK(pool_stats(0).reserved_bytes == 0);
  }
  trim_pool();  // nothing to trim: no error
  const std::string e = error_of([] { device_bytes(2048 * kMiB); }, ErrorCode::Device);
  CHECK(e ==
        "cuMemAlloc failed: CUDA_ERROR_OUT_OF_MEMORY (out of memory) allocating 2147483648 bytes on device 0 "
        "(1073741824 bytes free of 1073741824)");
}

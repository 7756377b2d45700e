// ElementwiseKernel calls that allocate their outputs against calls into
// caller-owned outputs (issue 21: at most 1.2x at 2^12 and 2^20 elements),
// with the memory pool and with CUJIT_POOL=0.
//
//   bench_pool_alloc [--calls 10000] [--runs 7]
//
// For float32 `z = x*y + 5` on device 0, inputs resident: `calls` calls
// back to back on the legacy default stream, then one synchronize; the wall
// time over the calls is one run. Per n the three ways take turns run by run
// (caller-owned, allocated with the pool, allocated with CUJIT_POOL=0: a child
// process of this program, as the setting is read once), after a warm-up;
// the table has the medians per call. Prints a markdown table.
//   bench_pool_alloc --direct N CALLS RUNS: the child: one line of run times (ms).
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <stdexcept>
#include <string>
#include <vector>

#include "core/driver.hpp"
#include "cujit/elementwise.hpp"
#include "cujit/pool.hpp"

using namespace cujit;
using clock_type = std::chrono::steady_clock;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

struct Setup {
  ElementwiseKernel k{"T x, T y", "T z", "z = x * y + 5", "pool_bench"};
  Array x, y, z;
  explicit Setup(std::int64_t n) {
    HostArray h(DType::Float32, {n});
    for (std::int64_t i = 0; i < n; ++i) h.as<float>()[i] = static_cast<float>(i % 1000) * 0.001f;
    x = Array::copy_of(h.view(), Device::cuda(0));
    y = Array::copy_of(h.view(), Device::cuda(0));
    z = Array::empty(DType::Float32, {n}, Device::cuda(0));
  }
};

// One run: `calls` calls, then a synchronize; milliseconds of wall time.
double run(Setup& s, int calls, bool allocate) {
  synchronize(0);
  const auto t0 = clock_type::now();
  if (allocate) {
    for (int i = 0; i < calls; ++i) s.k(s.x, s.y);  // the output goes at once: back to the pool
  } else {
    for (int i = 0; i < calls; ++i) s.k(s.x, s.y, s.z);
  }
  synchronize(0);
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

// The CUJIT_POOL=0 runs, from a child process of this program.
std::vector<double> direct_runs(const char* self, std::int64_t n, int calls, int runs) {
  const std::string cmd = fmt::format("CUJIT_POOL=0 '{}' --direct {} {} {}", self, n, calls, runs);
  FILE* p = popen(cmd.c_str(), "r");
  std::vector<double> out;
  double v = 0;
  while (p && std::fscanf(p, "%lf", &v) == 1) out.push_back(v);
  if (!p || pclose(p) != 0 || out.size() != static_cast<std::size_t>(runs))
    throw std::runtime_error("the CUJIT_POOL=0 child failed: " + cmd);
  return out;
}

int child(std::int64_t n, int calls, int runs) {
  Setup s(n);
  run(s, calls / 10, true);  // warm-up: compile, load
  for (int r = 0; r < runs; ++r) std::printf("%.6f\n", run(s, calls, true));
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc == 5 && std::string(argv[1]) == "--direct")
    return child(std::atoll(argv[2]), std::atoi(argv[3]), std::atoi(argv[4]));
  int calls = 10000, runs = 7;
  for (int a = 1; a + 1 < argc; a += 2) {
    if (std::string(argv[a]) == "--calls") calls = std::atoi(argv[a + 1]);
    if (std::string(argv[a]) == "--runs") runs = std::atoi(argv[a + 1]);
  }
  if (!gpu_available()) {
    std::fprintf(stderr, "bench_pool_alloc: no GPU (%s)\n", gpu_unavailable_reason().c_str());
    return 77;
  }
  char date[32];
  const std::time_t now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  std::printf("GPU: %s, %s; %d calls of float32 `z = x*y + 5` per run, medians of %d runs (wall time per call, "
              "the calls and one synchronize)\n\n",
              device_info(0).name.c_str(), date, calls, runs);
  std::printf("| n | caller-owned outputs | allocated, pool | ratio | allocated, CUJIT_POOL=0 | ratio | pool peak reserved |\n");
  std::printf("|---|---:|---:|---:|---:|---:|---:|\n");
  for (int log2n : {12, 20}) {
    const std::int64_t n = std::int64_t{1} << log2n;
    Setup s(n);
    run(s, calls / 10, false);
    run(s, calls / 10, true);
    std::vector<double> owned, pooled;
    for (int r = 0; r < runs; ++r) {
      owned.push_back(run(s, calls, false));
      pooled.push_back(run(s, calls, true));
    }
    const std::vector<double> direct = direct_runs(argv[0], n, calls, runs);
    const double us = 1000.0 / calls, o = median(owned) * us, p = median(pooled) * us, d = median(direct) * us;
    std::printf("| 2^%d | %.2f us | %.2f us | %.2fx | %.2f us | %.2fx | %llu bytes |\n", log2n, o, p, p / o, d, d / o,
                static_cast<unsigned long long>(pool_stats(0).reserved_high_bytes));
  }
  return 0;
}

// cujit's side of bench/first_call.py: one fresh process's first call.
// Prints one line `ctx_ms first_ms second_ms nvrtc_ms disk_read_ms compiles disk_hits`:
//   ctx_ms     constructing an ElementwiseKernel for `z = sin(x)*5` and
//              creating the CUDA context (the first device allocation);
//   first_ms   its first call on 2^20 float32 elements, until the kernel is done
//              (check, codegen, compile or disk-cache read, module load, launch);
//   second_ms  a second call, until done (the cached path);
//   nvrtc_ms   time inside NVRTC (0 on a disk-cache hit);
//   disk_read_ms  time reading and checking the disk-cache entry.
// The kernel cache folder is CUJIT_CACHE_DIR: fresh for a cold call, filled
// by an earlier run for a disk-cache hit.
#include <fmt/format.h>

#include <chrono>

#include "cujit/elementwise.hpp"
#include "core/driver.hpp"
#include "cache/kernel_cache.hpp"

using namespace cujit;

int main() {
  if (!gpu_available()) {
    fmt::print("bench_first_call: no CUDA device ({})\n", gpu_unavailable_reason());
    return 77;
  }
  using clk = std::chrono::steady_clock;
  auto ms = [](clk::time_point a, clk::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  const std::int64_t n = 1 << 20;
  // As an application starts: its kernels are defined, then its arrays made
  // (which creates the CUDA context), then the first call.
  auto t0 = clk::now();
  ElementwiseKernel k("float32 x", "float32 z", "z = sin(x)*5", "first_call");
  Array x = Array::empty(DType::Float32, Shape{n}, Device::cuda(0));
  Array z = Array::empty(DType::Float32, Shape{n}, Device::cuda(0));
  auto t1 = clk::now();
  k(x, z);
  synchronize(0);
  auto t2 = clk::now();
  k(x, z);
  synchronize(0);
  auto t3 = clk::now();
  cache::Counters c = cache::global_cache().counters();
  fmt::print("{:.3f} {:.3f} {:.3f} {:.3f} {:.3f} {} {}\n", ms(t0, t1), ms(t1, t2), ms(t2, t3), c.compile_ns / 1e6,
             c.disk_read_ns / 1e6, c.compiles, c.disk_hits);
  return 0;
}

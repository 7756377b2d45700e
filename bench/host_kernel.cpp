// ElementwiseKernel on host arrays against evaluate() on the same program
// (issue 22): 8M float64 `y = x + 1.5` as evaluate(), k(x) (allocates y),
// k(x, y) (writes the given y), CuPy's in-place idiom k(x, x), and the
// physics loop's in-place update `a = a * 0.99 + 0.5` as k(a, a). Prints one
// line per form: the median milliseconds of REPS calls after a warm-up.
// bench/host_kernel.py runs it beside NumPy's out= forms in one process.
//   bench_host_kernel [N] [REPS]
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <functional>
#include <vector>

#include "cujit/elementwise.hpp"
#include "cujit/evaluate.hpp"

using namespace cujit;

namespace {
double median_ms(int reps, const std::function<void()>& f) {
  f();
  std::vector<double> t;
  for (int r = 0; r < reps; ++r) {
    auto t0 = std::chrono::steady_clock::now();
    f();
    t.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}
}  // namespace

int main(int argc, char** argv) {
  const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : 8 << 20;
  const int reps = argc > 2 ? std::atoi(argv[2]) : 21;
  HostArray x(DType::Float64, {n}), y(DType::Float64, {n}), a(DType::Float64, {n});
  for (std::int64_t k = 0; k < n; ++k) x.as<double>()[k] = 0.001 * static_cast<double>(k % 1000), a.as<double>()[k] = 1.0;
  ElementwiseKernel add("float64 x", "float64 y", "y = x + 1.5", "add15");
  ElementwiseKernel upd("float64 x", "float64 y", "y = x * 0.99 + 0.5", "decay");
  std::printf("evaluate %.3f\n", median_ms(reps, [&] { evaluate("y = x + 1.5", {{"x", x}}); }));
  std::printf("k(x) %.3f\n", median_ms(reps, [&] { add(x.view()); }));
  std::printf("k(x,y) %.3f\n", median_ms(reps, [&] { add(x.view(), y.view()); }));
  std::printf("k(x,x) %.3f\n", median_ms(reps, [&] { add(y.view(), y.view()); }));
  std::printf("k(a,a)decay %.3f\n", median_ms(reps, [&] { upd(a.view(), a.view()); }));
  return 0;
}

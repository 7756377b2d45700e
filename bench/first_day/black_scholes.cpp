// First-day program (b), issue 22: Black-Scholes call and put prices with a
// CuPy-style ElementwiseKernel (a placeholder T for float32 or float64, typed
// locals), the cumulative normal as the usual NumPy version writes it (the
// Abramowitz-Stegun polynomial: NumPy has no erf). Inputs and results are
// .npy files read and written with cujit's npy API; host arrays, so the CPU
// evaluator runs it. Prints the milliseconds of loading, computing and saving.
//   first_day_black_scholes DIR RATE VOLATILITY
//   (reads DIR/s.npy, DIR/x.npy, DIR/t.npy; writes DIR/call.npy, DIR/put.npy)
#include <cujit/elementwise.hpp>
#include <cujit/error.hpp>
#include <cujit/npy.hpp>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>

namespace {
// cnd(d) = 1 - phi(d) * poly(k) for d > 0, phi(d) * poly(k) otherwise.
const char* kOperation = R"(
T sq = sqrt(t)
T d1 = (log(s / x) + (r + 0.5 * v * v) * t) / (v * sq)
T d2 = d1 - v * sq
T k1 = 1 / (1 + 0.2316419 * abs(d1))
T k2 = 1 / (1 + 0.2316419 * abs(d2))
T p1 = 0.3989422804014327 * exp(-0.5 * d1 * d1) * (k1 * (0.31938153 + k1 * (-0.356563782 + k1 * (1.781477937 + k1 * (-1.821255978 + k1 * 1.330274429)))))
T p2 = 0.3989422804014327 * exp(-0.5 * d2 * d2) * (k2 * (0.31938153 + k2 * (-0.356563782 + k2 * (1.781477937 + k2 * (-1.821255978 + k2 * 1.330274429)))))
T cnd1 = where(d1 > 0, 1 - p1, p1)
T cnd2 = where(d2 > 0, 1 - p2, p2)
T disc = x * exp(-r * t)
call = s * cnd1 - disc * cnd2
put = disc * (1 - cnd2) - s * (1 - cnd1)
)";
}  // namespace

int main(int argc, char** argv) {
  if (argc != 4) {
    std::fprintf(stderr, "usage: first_day_black_scholes DIR RATE VOLATILITY\n");
    return 2;
  }
  using clock = std::chrono::steady_clock;
  auto ms = [](clock::time_point a, clock::time_point b) { return std::chrono::duration<double, std::milli>(b - a).count(); };
  const std::string dir = argv[1];
  try {
    cujit::ElementwiseKernel bs("T s, T x, T t, T r, T v", "T call, T put", kOperation, "black_scholes");
    auto t0 = clock::now();
    cujit::Array s = cujit::load_npy(dir + "/s.npy"), x = cujit::load_npy(dir + "/x.npy"),
                 t = cujit::load_npy(dir + "/t.npy");
    auto t1 = clock::now();
    // r and v become T, as CuPy converts a scalar for a placeholder bound by the arrays.
    auto out = bs(s, x, t, std::atof(argv[2]), std::atof(argv[3]));
    auto t2 = clock::now();
    cujit::save_npy(dir + "/call.npy", out["call"]);
    cujit::save_npy(dir + "/put.npy", out["put"]);
    auto t3 = clock::now();
    std::printf("load %.3f compute %.3f save %.3f\n", ms(t0, t1), ms(t1, t2), ms(t2, t3));
    return 0;
  } catch (const cujit::Error& e) {
    std::fprintf(stderr, "first_day_black_scholes: %s\n", e.what());
    return e.exit_code();
  }
}

// Three NumPy jobs written from the docs alone and run on the CPU evaluator:
// no GPU, no driver, no CUDA runtime (host arrays run on the CPU). Each result
// is checked against a plain C++ loop:
//   1. gamma and contrast stretch of a uint8 image, saved and loaded as .npy;
//   2. Black-Scholes call prices with CuPy's parameter syntax and a
//      placeholder-typed local (`T sq = sqrt(t)`);
//   3. a physics loop updating positions and velocities in place (NumPy's
//      in-place ufuncs, `x += v * dt`).
//   sample_cpu_first_day [N]      # N elements per job, 100000 by default
#include <cujit/elementwise.hpp>
#include <cujit/error.hpp>
#include <cujit/evaluate.hpp>
#include <cujit/npy.hpp>

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <random>
#include <string>

namespace {

bool image_job(std::int64_t n, std::mt19937& rng) {
  cujit::HostArray img(cujit::DType::UInt8, {n});
  for (std::int64_t k = 0; k < n; ++k) img.as<std::uint8_t>()[k] = static_cast<std::uint8_t>(rng() % 256);
  auto outs = cujit::evaluate(
      "t = (float32(img) / 255) ** gamma\n"
      "out = uint8(clip((t - lo) / (hi - lo), 0, 1) * 255 + 0.5)",
      {{"img", img.view()}, {"gamma", 0.8}, {"lo", 0.1}, {"hi", 0.9}});
  const std::string path =
      (std::filesystem::temp_directory_path() / ("cujit_first_day_" + std::to_string(::getpid()) + ".npy")).string();
  cujit::save_npy(path, outs["out"]);
  cujit::Array out = cujit::load_npy(path);  // np.save, then np.load
  std::filesystem::remove(path);
  int worst = 0;
  for (std::int64_t k = 0; k < n; ++k) {
    float t = std::pow(static_cast<float>(img.as<std::uint8_t>()[k]) / 255.0f, 0.8f);
    float s = std::min(std::max((t - 0.1f) / (0.9f - 0.1f), 0.0f), 1.0f) * 255.0f + 0.5f;
    // The last bit of a float32 pow may differ from the C library's: one grey level at most.
    worst = std::max(worst, std::abs(static_cast<int>(out.as<std::uint8_t>()[k]) - static_cast<int>(s)));
  }
  std::printf("image: %lld uint8 pixels, gamma and stretch, through .npy; largest difference %d grey level(s)\n",
              static_cast<long long>(n), worst);
  return out.dtype() == cujit::DType::UInt8 && worst <= 1;
}

bool black_scholes_job(std::int64_t n, std::mt19937& rng) {
  cujit::ElementwiseKernel bs("T s, T x, T t, f8 r, f8 v", "T call",
                              "T sq = sqrt(t)\n"
                              "T d1 = (log(s / x) + (r + 0.5 * v * v) * t) / (v * sq)\n"
                              "T d2 = d1 - v * sq\n"
                              "call = s * 0.5 * erfc(-d1 * 0.7071067811865476) - x * exp(-r * t) * 0.5 * "
                              "erfc(-d2 * 0.7071067811865476)",
                              "black_scholes");
  cujit::HostArray s(cujit::DType::Float64, {n}), x(cujit::DType::Float64, {n}), t(cujit::DType::Float64, {n});
  std::uniform_real_distribution<double> us(5, 30), ux(1, 100), ut(0.25, 10);
  for (std::int64_t k = 0; k < n; ++k) s.as<double>()[k] = us(rng), x.as<double>()[k] = ux(rng), t.as<double>()[k] = ut(rng);
  cujit::Array call = bs(s.view(), x.view(), t.view(), 0.02, 0.3)[0];
  double worst = 0;
  for (std::int64_t k = 0; k < n; ++k) {
    double S = s.as<double>()[k], X = x.as<double>()[k], T = t.as<double>()[k], sq = std::sqrt(T);
    double d1 = (std::log(S / X) + (0.02 + 0.5 * 0.3 * 0.3) * T) / (0.3 * sq), d2 = d1 - 0.3 * sq;
    double want = S * 0.5 * std::erfc(-d1 * 0.7071067811865476) - X * std::exp(-0.02 * T) * 0.5 * std::erfc(-d2 * 0.7071067811865476);
    worst = std::max(worst, std::fabs(call.as<double>()[k] - want) / std::max(1.0, std::fabs(want)));
  }
  std::printf("black_scholes: %lld float64 options, max relative error %.2e\n", static_cast<long long>(n), worst);
  return call.dtype() == cujit::DType::Float64 && worst <= 1e-12;
}

bool physics_job(std::int64_t n) {
  cujit::HostArray x(cujit::DType::Float64, {n}), v(cujit::DType::Float64, {n});
  std::vector<double> rx(static_cast<std::size_t>(n)), rv(static_cast<std::size_t>(n));
  for (std::int64_t k = 0; k < n; ++k)
    x.as<double>()[k] = rx[static_cast<std::size_t>(k)] = std::sin(0.001 * static_cast<double>(k)),
    v.as<double>()[k] = rv[static_cast<std::size_t>(k)] = 0;
  const double dt = 0.01, spring = 4.0;
  for (int step = 0; step < 50; ++step) {
    // x and v are updated in the arrays passed, as NumPy's `x += v * dt` does.
    cujit::evaluate("v -= spring * x * dt; x += v * dt", {{"x", x.view()}, {"v", v.view()}, {"spring", spring}, {"dt", dt}});
    for (std::size_t k = 0; k < rx.size(); ++k) rv[k] -= spring * rx[k] * dt, rx[k] += rv[k] * dt;
  }
  bool same = true;
  for (std::int64_t k = 0; k < n; ++k)
    same = same && x.as<double>()[k] == rx[static_cast<std::size_t>(k)] && v.as<double>()[k] == rv[static_cast<std::size_t>(k)];
  std::printf("physics: %lld particles, 50 in-place steps, %s the C++ loop\n", static_cast<long long>(n),
              same ? "identical to" : "DIFFERENT from");
  return same;
}

}  // namespace

int main(int argc, char** argv) {
  const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : 100000;
  std::mt19937 rng(22);
  try {
    std::printf("cpu_first_day: host arrays, so everything runs on the CPU evaluator (no GPU needed)\n");
    bool ok = image_job(n, rng);
    ok = black_scholes_job(n, rng) && ok;
    ok = physics_job(n) && ok;
    return ok ? 0 : 1;
  } catch (const cujit::Error& e) {
    std::fprintf(stderr, "cpu_first_day: %s\n", e.what());
    return e.exit_code();
  }
}

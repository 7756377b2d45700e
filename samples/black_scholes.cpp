// Black-Scholes call and put prices for 10^8 European options in float32, as
// CUDA's BlackScholes sample computes them, written as one cujit program.
// Reports the kernel time and the effective bandwidth (5 arrays of float per
// option, as that sample counts it), then checks 10^6 options against the CPU
// evaluator.
#include <cujit/elementwise.hpp>
#include <cujit/error.hpp>
#include <cujit/evaluate.hpp>

#include <algorithm>
#include <random>
#include <vector>

#include "sample_util.hpp"

static const char* kProgram =
    "sqrt_t = sqrt(t)\n"
    "d1 = (log(s / x) + (r + 0.5 * v * v) * t) / (v * sqrt_t)\n"
    "d2 = d1 - v * sqrt_t\n"
    "cnd1 = 0.5 * erfc(-d1 * 0.7071067811865476);  // the normal CDF\n"
    "cnd2 = 0.5 * erfc(-d2 * 0.7071067811865476)\n"
    "exp_rt = exp(-r * t)\n"
    "call = s * cnd1 - x * exp_rt * cnd2\n"
    "put = x * exp_rt * (1 - cnd2) - s * (1 - cnd1)";

int main(int argc, char** argv) {
  require_gpu("black_scholes");
  const std::int64_t n = argc > 1 ? std::atoll(argv[1]) : 100000000;
  const double r = 0.02, v = 0.30;
  try {
    cujit::Array s = cujit::Array::empty(cujit::DType::Float32, cujit::Shape{n}, cujit::Device::cpu());
    cujit::Array x = cujit::Array::empty(cujit::DType::Float32, cujit::Shape{n}, cujit::Device::cpu());
    cujit::Array t = cujit::Array::empty(cujit::DType::Float32, cujit::Shape{n}, cujit::Device::cpu());
    std::mt19937 rng(5347);
    std::uniform_real_distribution<float> us(5.0f, 30.0f), ux(1.0f, 100.0f), ut(0.25f, 10.0f);
    for (std::int64_t k = 0; k < n; ++k) s.as<float>()[k] = us(rng), x.as<float>()[k] = ux(rng), t.as<float>()[k] = ut(rng);
    cujit::Array ds = s.to_device(0), dx = x.to_device(0), dt = t.to_device(0);
    cujit::Array call = cujit::Array::empty(cujit::DType::Float32, cujit::Shape{n}, cujit::Device::cuda(0));
    cujit::Array put = cujit::Array::empty(cujit::DType::Float32, cujit::Shape{n}, cujit::Device::cuda(0));
    SAMPLE_CUDA(cudaMemset(call.data(), 0xff, call.nbytes()));  // poison
    SAMPLE_CUDA(cudaMemset(put.data(), 0xff, put.nbytes()));

    cujit::ElementwiseKernel bs("float32 s, float32 x, float32 t, float64 r, float64 v", "float32 call, float32 put",
                                kProgram, "black_scholes");
    bs(ds, dx, dt, r, v, call, put);  // compiles (or loads from the cache) and warms up
    SAMPLE_CUDA(cudaDeviceSynchronize());
    cudaEvent_t e0, e1;
    SAMPLE_CUDA(cudaEventCreate(&e0));
    SAMPLE_CUDA(cudaEventCreate(&e1));
    std::vector<float> times;
    for (int rep = 0; rep < 10; ++rep) {
      SAMPLE_CUDA(cudaEventRecord(e0, nullptr));
      bs(ds, dx, dt, r, v, call, put);
      SAMPLE_CUDA(cudaEventRecord(e1, nullptr));
      SAMPLE_CUDA(cudaEventSynchronize(e1));
      float ms = 0;
      SAMPLE_CUDA(cudaEventElapsedTime(&ms, e0, e1));
      times.push_back(ms);
    }
    std::sort(times.begin(), times.end());
    float ms = times[times.size() / 2];
    double gbs = 5.0 * static_cast<double>(n) * sizeof(float) * 1e-9 / (ms * 1e-3);
    std::printf("black_scholes: %lld options, median kernel time %.3f ms, effective bandwidth %.1f GB/s, %.2f Goptions/s\n",
                static_cast<long long>(n), ms, gbs, static_cast<double>(n) * 1e-9 / (ms * 1e-3));

    // Check 10^6 options (or all, if fewer) against the CPU evaluator.
    const std::int64_t m = std::min<std::int64_t>(n, 1000000);
    auto head = [&](const cujit::Array& a) {
      cujit::ArrayView h = a.view();
      h.shape = cujit::Shape{m};
      return h;
    };
    auto ref = cujit::evaluate(kProgram, {{"s", head(s)}, {"x", head(x)}, {"t", head(t)}, {"r", r}, {"v", v}},
                               cujit::EvaluateOptions{cujit::Device::cpu(), {}, {}, nullptr, false});
    cujit::Array hcall = call.to_host(), hput = put.to_host();
    double worst = 0;
    for (const auto& o : ref) {
      const float* got = (o.name == "call" ? hcall : hput).as<float>();
      const float* want = o.array.as<float>();
      for (std::int64_t k = 0; k < m; ++k)
        worst = std::max(worst, std::fabs(static_cast<double>(got[k]) - want[k]) / std::max(1.0, std::fabs(static_cast<double>(want[k]))));
    }
    std::printf("black_scholes: %lld options checked against the CPU evaluator, max relative error %.2e\n",
                static_cast<long long>(m), worst);
    return worst <= 1e-5 ? 0 : 1;
  } catch (const cujit::Error& e) {
    std::fprintf(stderr, "black_scholes: %s\n", e.what());
    return e.exit_code();
  }
}

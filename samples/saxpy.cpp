// The smallest embedding: the application owns its device memory (cudaMalloc)
// and hands cujit views of it. z = a*x + y over 2^24 floats.
#include <cujit/elementwise.hpp>
#include <cujit/error.hpp>
#include <cujit/evaluate.hpp>

#include <random>
#include <vector>

#include "sample_util.hpp"

int main() {
  require_gpu("saxpy");
  const std::int64_t n = 1 << 24;
  std::vector<float> x(n), y(n), z(n);
  std::mt19937 rng(42);
  std::uniform_real_distribution<float> u(-10.0f, 10.0f);
  for (std::int64_t k = 0; k < n; ++k) x[k] = u(rng), y[k] = u(rng);

  float *dx, *dy, *dz;
  SAMPLE_CUDA(cudaMalloc(&dx, n * sizeof(float)));
  SAMPLE_CUDA(cudaMalloc(&dy, n * sizeof(float)));
  SAMPLE_CUDA(cudaMalloc(&dz, n * sizeof(float)));
  SAMPLE_CUDA(cudaMemcpy(dx, x.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  SAMPLE_CUDA(cudaMemcpy(dy, y.data(), n * sizeof(float), cudaMemcpyHostToDevice));
  SAMPLE_CUDA(cudaMemset(dz, 0xff, n * sizeof(float)));  // poison: NaNs

  auto device_view = [&](float* p) {
    cujit::ArrayView v;
    v.data = p;
    v.dtype = cujit::DType::Float32;
    v.shape = cujit::Shape{n};
    v.strides = cujit::ArrayView::contiguous_strides(v.shape, v.dtype);
    v.device = cujit::Device::cuda(0);
    return v;
  };
  try {
    cujit::ElementwiseKernel saxpy("float32 a, T x, T y", "T z", "z = a * x + y", "saxpy");
    saxpy(2.5f, device_view(dx), device_view(dy), device_view(dz));
    SAMPLE_CUDA(cudaDeviceSynchronize());
    SAMPLE_CUDA(cudaMemcpy(z.data(), dz, n * sizeof(float), cudaMemcpyDeviceToHost));

    // The reference: the same program on the CPU evaluator.
    auto host_view = [&](std::vector<float>& v) {
      cujit::ArrayView h = device_view(v.data());
      h.device = cujit::Device::cpu();
      return h;
    };
    auto ref = cujit::evaluate("z = a * x + y", {{"a", cujit::Arg::typed(cujit::DType::Float32, 2.5f)},
                                                 {"x", host_view(x)}, {"y", host_view(y)}});
    std::int64_t worst = max_ulp(z.data(), ref[0].array.as<float>(), n);
    std::printf("saxpy: %lld elements, max difference from the CPU evaluator: %lld ulp\n",
                static_cast<long long>(n), static_cast<long long>(worst));
    SAMPLE_CUDA(cudaFree(dx));
    SAMPLE_CUDA(cudaFree(dy));
    SAMPLE_CUDA(cudaFree(dz));
    return worst == 0 ? 0 : 1;
  } catch (const cujit::Error& e) {
    std::fprintf(stderr, "saxpy: %s\n", e.what());
    return e.exit_code();
  }
}

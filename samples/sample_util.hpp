// What every sample needs: a CUDA check, a "skipped without a GPU" exit, and a
// comparison with the CPU evaluator within the contract's float32 bound.
#pragma once
#include <cuda_runtime.h>

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#define SAMPLE_CUDA(call)                                                                        \
  do {                                                                                           \
    cudaError_t e_ = (call);                                                                     \
    if (e_ != cudaSuccess) {                                                                     \
      std::fprintf(stderr, "%s failed: %s (%s)\n", #call, cudaGetErrorName(e_), cudaGetErrorString(e_)); \
      std::exit(4);                                                                              \
    }                                                                                            \
  } while (0)

inline void require_gpu(const char* sample) {
  int n = 0;
  if (cudaGetDeviceCount(&n) != cudaSuccess || n == 0) {
    std::printf("%s: no CUDA device, skipped\n", sample);
    std::exit(77);
  }
}

inline std::int64_t ulp_distance(float a, float b) {
  if (std::isnan(a) && std::isnan(b)) return 0;
  std::int32_t ia, ib;
  std::memcpy(&ia, &a, 4);
  std::memcpy(&ib, &b, 4);
  if (ia < 0) ia = INT32_MIN - ia;
  if (ib < 0) ib = INT32_MIN - ib;
  return std::llabs(static_cast<long long>(ia) - ib);
}

// Largest ulp distance between two float arrays.
inline std::int64_t max_ulp(const float* got, const float* want, std::int64_t n) {
  std::int64_t worst = 0;
  for (std::int64_t k = 0; k < n; ++k) {
    std::int64_t d = ulp_distance(got[k], want[k]);
    if (d > worst) worst = d;
  }
  return worst;
}

// The ceilings and CUB for bench/reductions.py, compiled there with nvcc
// (CCCL ships with the toolkit): one case per line on stdin,
//
//   ID|SYSTEM|OP|DTYPE|OUTER|LEN|INNER
//
// SYSTEM: read (a tuned read-only stream of the input's bytes, the ceiling of
// a whole reduction), rw (read the input, write the output's bytes: the
// ceiling of an axis reduction or a normalisation; OUTER*INNER output
// elements, or LEN*OUTER for OP=norm), cub (DeviceReduce for a whole
// reduction, DeviceSegmentedReduce for the last axis; other shapes print
// nothing). OP: sum, max, argmax, dot (sum of x*y). Prints `ID MEDIAN_MS`:
// the median of 25 calls after a warm-up, each between two events, with a
// ~100 us spin kernel queued first so that the events time the GPU alone.
#include <cub/cub.cuh>
#include <cuda_fp16.h>
#include <thrust/iterator/counting_iterator.h>
#include <thrust/iterator/transform_iterator.h>

#include <algorithm>
#include <cstdio>
#include <iostream>
#include <sstream>
#include <string>
#include <vector>

#define CK(x)                                                                                  \
  do {                                                                                         \
    cudaError_t e_ = (x);                                                                      \
    if (e_ != cudaSuccess) {                                                                   \
      std::fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, cudaGetErrorString(e_)); \
      std::exit(1);                                                                            \
    }                                                                                          \
  } while (0)

__global__ void spin(long long cycles) {
  long long t0 = clock64();
  while (clock64() - t0 < cycles) {
  }
}

// The values bench_reductions gives cujit (bench/reductions.cpp's fill):
// sin(i * 0.37) * 4 for floats, (i * 7919 + 3) % 251 - 125 for int32.
template <class T> __global__ void fill(T* p, long long n, bool integer) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    p[i] = integer ? (T)(int)((i * 7919 + 3) % 251 - 125) : (T)(sin(i * 0.37) * 4);
}
template <> __global__ void fill<__half>(__half* p, long long n, bool) {
  for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)gridDim.x * blockDim.x)
    p[i] = __double2half(sin(i * 0.37) * 4);
}

void fill_as(const std::string& dt, void* buf, std::size_t bytes) {
  if (dt == "float64") fill<<<4096, 256>>>((double*)buf, (long long)(bytes / 8), false);
  else if (dt == "float16") fill<<<4096, 256>>>((__half*)buf, (long long)(bytes / 2), false);
  else if (dt == "int32") fill<<<4096, 256>>>((int*)buf, (long long)(bytes / 4), true);
  else fill<<<4096, 256>>>((float*)buf, (long long)(bytes / 4), false);
  CK(cudaGetLastError());
  CK(cudaDeviceSynchronize());
}

// The read ceiling: 16-byte loads, UNROLL independent loads in flight per
// thread, a grid of resident blocks striding over the input. The xor keeps
// the loads alive; the store never happens for real data.
template <int UNROLL>
__global__ void __launch_bounds__(256) read_stream(const uint4* __restrict__ p, long long n16, unsigned* sink) {
  unsigned acc = 0;
  const long long step = (long long)gridDim.x * blockDim.x;
  long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x;
  for (; k + (UNROLL - 1) * step < n16; k += UNROLL * step) {
    uint4 v[UNROLL];
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) v[u] = __ldg(p + k + u * step);
#pragma unroll
    for (int u = 0; u < UNROLL; ++u) acc ^= v[u].x ^ v[u].y ^ v[u].z ^ v[u].w;
  }
  for (; k < n16; k += step) {
    uint4 v = __ldg(p + k);
    acc ^= v.x ^ v.y ^ v.z ^ v.w;
  }
  if (acc == 0x9e3779b9u) sink[0] = acc;
}

// The read+write ceiling: the input streamed as above, the output written
// with 16-byte stores (a value derived from the loads, so nothing is elided).
__global__ void __launch_bounds__(256) rw_stream(const uint4* __restrict__ p, long long n16, uint4* __restrict__ q,
                                                 long long m16) {
  const long long step = (long long)gridDim.x * blockDim.x;
  unsigned acc = 0;
  for (long long k = (long long)blockIdx.x * blockDim.x + threadIdx.x; k < n16; k += 4 * step) {
    uint4 v[4];
#pragma unroll
    for (int u = 0; u < 4; ++u) v[u] = k + u * step < n16 ? __ldg(p + k + u * step) : make_uint4(0, 0, 0, 0);
#pragma unroll
    for (int u = 0; u < 4; ++u) {
      acc ^= v[u].x;
      if (k + u * step < m16) q[k + u * step] = v[u];
    }
  }
  for (long long k = n16 + (long long)blockIdx.x * blockDim.x + threadIdx.x; k < m16; k += step)
    q[k] = make_uint4(acc, 0, 0, 0);
}

struct Half2Float {
  __host__ __device__ float operator()(__half h) const { return __half2float(h); }
};
template <class T> struct Dot {
  const T* x;
  const T* y;
  __host__ __device__ T operator()(long long i) const { return x[i] * y[i]; }
};
struct HalfDot {
  const __half* x;
  const __half* y;
  __host__ __device__ float operator()(long long i) const { return __half2float(x[i]) * __half2float(y[i]); }
};
struct Times {
  long long len;
  __host__ __device__ long long operator()(long long i) const { return i * len; }
};

float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

template <class F> float timed(F&& f) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  f();
  CK(cudaDeviceSynchronize());
  std::vector<float> ms;
  for (int r = 0; r < 25; ++r) {
    spin<<<1, 1>>>(200000);
    CK(cudaEventRecord(a));
    f();
    CK(cudaEventRecord(b));
    CK(cudaEventSynchronize(b));
    float t = 0;
    CK(cudaEventElapsedTime(&t, a, b));
    ms.push_back(t);
  }
  CK(cudaGetLastError());
  cudaEventDestroy(a);
  cudaEventDestroy(b);
  return median(ms);
}

void* temp_storage(std::size_t bytes) {
  static void* p = nullptr;
  static std::size_t have = 0;
  if (bytes > have) {
    if (p) CK(cudaFree(p));
    CK(cudaMalloc(&p, bytes));
    have = bytes;
  }
  return p;
}

// CUB's whole reduction of `op` over n elements of T (float16 through float).
template <class T> float cub_full(const std::string& op, const T* x, const T* y, long long n, void* out, void* out2) {
  std::size_t bytes = 0;
  const int nn = (int)n;
  auto run = [&](auto&& call) {
    call(nullptr, bytes);
    void* tmp = temp_storage(bytes);
    return timed([&] { call(tmp, bytes); });
  };
  if constexpr (std::is_same_v<T, __half>) {
    auto in = thrust::make_transform_iterator(x, Half2Float{});
    float* o = (float*)out;
    if (op == "sum") return run([&](void* t, std::size_t& b) { CK(cub::DeviceReduce::Sum(t, b, in, o, nn)); });
    if (op == "max") return run([&](void* t, std::size_t& b) { CK(cub::DeviceReduce::Max(t, b, in, o, nn)); });
    if (op == "argmax")
      return run([&](void* t, std::size_t& b) { CK(cub::DeviceReduce::ArgMax(t, b, in, o, (long long*)out2, nn)); });
    auto d = thrust::make_transform_iterator(thrust::counting_iterator<long long>(0), HalfDot{x, y});
    return run([&](void* t, std::size_t& b) { CK(cub::DeviceReduce::Sum(t, b, d, o, nn)); });
  } else {
    T* o = (T*)out;
    if (op == "sum") return run([&](void* t, std::size_t& b) { CK(cub::DeviceReduce::Sum(t, b, x, o, nn)); });
    if (op == "max") return run([&](void* t, std::size_t& b) { CK(cub::DeviceReduce::Max(t, b, x, o, nn)); });
    if (op == "argmax")
      return run([&](void* t, std::size_t& b) { CK(cub::DeviceReduce::ArgMax(t, b, x, o, (long long*)out2, nn)); });
    auto d = thrust::make_transform_iterator(thrust::counting_iterator<long long>(0), Dot<T>{x, y});
    return run([&](void* t, std::size_t& b) { CK(cub::DeviceReduce::Sum(t, b, d, o, nn)); });
  }
}

float cub_rows(const float* x, long long rows, long long len, float* out) {
  auto begin = thrust::make_transform_iterator(thrust::counting_iterator<long long>(0), Times{len});
  auto end = begin + 1;
  std::size_t bytes = 0;
  CK(cub::DeviceSegmentedReduce::Sum(nullptr, bytes, x, out, (int)rows, begin, end));
  void* tmp = temp_storage(bytes);
  return timed([&] { CK(cub::DeviceSegmentedReduce::Sum(tmp, bytes, x, out, (int)rows, begin, end)); });
}

int main() {
  std::string line;
  int sms = 0;
  CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  void* buf = nullptr;
  std::size_t have = 0;
  void* out = nullptr;
  std::size_t have_out = 0;
  std::string filled;  // what buf holds
  long long* out2 = nullptr;
  CK(cudaMalloc(&out2, 64));
  unsigned* sink = nullptr;
  CK(cudaMalloc(&sink, 64));
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string part;
    while (std::getline(ss, part, '|')) f.push_back(part);
    const std::string id = f[0], sys = f[1], op = f[2], dt = f[3];
    const long long outer = std::stoll(f[4]), len = std::stoll(f[5]), inner = std::stoll(f[6]);
    const std::size_t item = dt == "float64" ? 8 : dt == "float16" ? 2 : 4;
    const long long n = outer * len * inner;
    const int inputs = op == "dot" ? 2 : 1;
    const std::size_t in_bytes = (std::size_t)n * item * inputs;
    const std::size_t out_bytes = op == "norm" ? (std::size_t)n * item : (std::size_t)(outer * inner) * item;
    if (in_bytes > have) {
      if (buf) CK(cudaFree(buf));
      CK(cudaMalloc(&buf, in_bytes));
      have = in_bytes;
      filled.clear();
    }
    if (filled != dt + "/" + std::to_string(in_bytes)) {  // the same inputs as cujit's
      fill_as(dt, buf, in_bytes);
      filled = dt + "/" + std::to_string(in_bytes);
    }
    if (out_bytes + 64 > have_out) {
      if (out) CK(cudaFree(out));
      CK(cudaMalloc(&out, out_bytes + 64));
      have_out = out_bytes + 64;
    }
    float ms = -1;
    if (sys == "read") {
      const long long n16 = (long long)(in_bytes / 16);
      int per_sm = 0;
      CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, read_stream<8>, 256, 0));
      const int grid = (int)std::min<long long>((long long)per_sm * sms, (n16 + 255) / 256);
      ms = timed([&] { read_stream<8><<<std::max(grid, 1), 256>>>((const uint4*)buf, n16, sink); });
    } else if (sys == "rw") {
      const long long n16 = (long long)(in_bytes / 16), m16 = (long long)((out_bytes + 15) / 16);
      int per_sm = 0;
      CK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, rw_stream, 256, 0));
      const int grid = (int)std::min<long long>((long long)per_sm * sms, (std::max(n16, m16) + 255) / 256);
      ms = timed([&] { rw_stream<<<std::max(grid, 1), 256>>>((const uint4*)buf, n16, (uint4*)out, m16); });
    } else if (sys == "cub" && outer * inner == 1) {
      if (dt == "float32") ms = cub_full<float>(op, (const float*)buf, (const float*)buf + n, n, out, out2);
      if (dt == "float64") ms = cub_full<double>(op, (const double*)buf, (const double*)buf + n, n, out, out2);
      if (dt == "int32") ms = cub_full<int>(op, (const int*)buf, (const int*)buf + n, n, out, out2);
      if (dt == "float16") ms = cub_full<__half>(op, (const __half*)buf, (const __half*)buf + n, n, out, out2);
    } else if (sys == "cub" && inner == 1 && op == "sum" && dt == "float32") {
      ms = cub_rows((const float*)buf, outer, len, (float*)out);
    }
    if (ms >= 0) std::printf("%s %.6f\n", id.c_str(), ms);
    std::fflush(stdout);
  }
  return 0;
}

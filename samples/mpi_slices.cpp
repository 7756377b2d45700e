// One elementwise job split over MPI ranks: rank r of p evaluates elements
// [r*N/p, (r+1)*N/p) of
//
//   x = 3 sin(0.001 g),  y = cos(0.0007 g) + 2,  out = sin(x)*5 + x*y   (g the global index)
//
// on GPU r % (GPUs on its node), or with the CPU evaluator where there is no GPU.
// Inputs are generated where they are used (a cujit program over the rank's
// slice), so nothing is scattered. Every rank checks its slice against the
// same formula written in plain C++ (<cmath>, float32 as NumPy rounds it: no
// cujit code), so the check holds on the CPU evaluator too; rank 0 checks that
// the slices add up to the whole job (the sum of `out` against the formula's
// sum over all N elements) and prints each rank's kernel-cache counters. With
// --expect-no-compiles a rank that had to compile a kernel fails the run: all
// ranks are meant to read one cache prepared ahead (`jitcache precompile` +
// `export`, then `import` on each node; see docs/deploy.md and
// samples/mpi_slices_test.sh). Ranks on the CPU compile nothing, so there the
// option is refused (exit 3) rather than passed without meaning.
//
//   mpirun -np 4 sample_mpi_slices [--n N] [--expect-no-compiles]
// Exit: 0 ok, 1 a check failed, 2 a rank compiled though none should, 3 usage
// (or --expect-no-compiles with a rank on the CPU).
#include <cuda_runtime.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "cujit/cache.hpp"
#include "cujit/evaluate.hpp"

namespace {

const char* kInputs = "g = float64(i + start); x = float32(sin(g * 0.001) * 3); y = float32(cos(g * 0.0007) + 2)";
const char* kProgram = "out = sin(x)*5 + x*y";

// The oracle: the inputs and the program in plain C++, as NumPy computes them
// (float64 for g and the input formulas, float32 for the program).
struct Inputs {
  float x, y;
};
Inputs formula_inputs(long long global) {
  const double g = static_cast<double>(global);
  return {static_cast<float>(std::sin(g * 0.001) * 3), static_cast<float>(std::cos(g * 0.0007) + 2)};
}
float formula_out(float x, float y) {
  const float s = std::sin(x) * 5.0f;  // float32 sin, weak 5: float32
  const float p = x * y;
  return s + p;
}

struct Report {
  long long count = 0;
  int gpu = -1;  // -1: the CPU evaluator
  unsigned long long compiles = 0, disk_hits = 0;
  long long max_ulp = 0;
  double sum = 0;
  int failed = 0;
  char error[256] = {};
};

long long ulp_distance(float a, float b) {
  if (std::isnan(a) && std::isnan(b)) return 0;
  int ia, ib;
  std::memcpy(&ia, &a, 4);
  std::memcpy(&ib, &b, 4);
  if (ia < 0) ia = INT32_MIN - ia;
  if (ib < 0) ib = INT32_MIN - ib;
  return std::llabs(static_cast<long long>(ia) - ib);
}

const cujit::Array& get(const std::vector<cujit::NamedArray>& arrays, const char* name) {
  for (const cujit::NamedArray& a : arrays)
    if (a.name == name) return a.array;
  throw std::runtime_error(std::string("no output ") + name);
}

cujit::Array on_host(const cujit::Array& a) { return a.device() == cujit::Device::cpu() ? a : a.to_host(); }

// x and y for elements [start, start + count), where `where` says.
std::vector<cujit::NamedArray> inputs(long long start, long long count, cujit::Device where) {
  cujit::EvaluateOptions o;
  o.device = where;
  o.shape = cujit::Shape{count};
  return cujit::evaluate(kInputs, {{"start", start}}, o);
}

Report run_slice(long long start, long long count, int gpu) {
  Report r;
  r.count = count;
  r.gpu = gpu;
  cujit::Device where = gpu >= 0 ? cujit::Device::cuda(gpu) : cujit::Device::cpu();
  std::vector<cujit::NamedArray> in = inputs(start, count, where);
  cujit::Array got = on_host(get(cujit::evaluate(kProgram, {{"x", get(in, "x")}, {"y", get(in, "y")}}), "out"));
  // The reference: the formula in plain C++. The inputs within 1 ulp of it (cujit's
  // float64 sin/cos and the C library's may differ in the last bit); `out` from
  // cujit's own inputs within 4 (float32 sin is within 2 ulp by the contract,
  // the product and the sum add rounding of their own).
  cujit::Array hx = on_host(get(in, "x")), hy = on_host(get(in, "y"));
  const float* x = hx.as<float>();
  const float* y = hy.as<float>();
  const float* g = got.as<float>();
  long long input_ulp = 0;
  for (long long k = 0; k < count; ++k) {
    const Inputs want = formula_inputs(start + k);
    input_ulp = std::max({input_ulp, ulp_distance(x[k], want.x), ulp_distance(y[k], want.y)});
    r.max_ulp = std::max(r.max_ulp, ulp_distance(g[k], formula_out(x[k], y[k])));
    r.sum += g[k];
  }
  if (input_ulp > 1) {
    r.failed = 1;
    std::snprintf(r.error, sizeof r.error, "inputs differ from the formula by %lld ulp", input_ulp);
  } else if (r.max_ulp > 4) {
    r.failed = 1;
    std::snprintf(r.error, sizeof r.error, "out differs from the formula by %lld ulp", r.max_ulp);
  }
  cujit::KernelCacheStats s = cujit::kernel_cache_stats();
  r.compiles = s.compiles;
  r.disk_hits = s.disk_hits;
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  int rank = 0, size = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &size);
  long long n = 1LL << 22;
  bool expect_no_compiles = false;
  for (int k = 1; k < argc; ++k) {
    std::string a = argv[k];
    if (a == "--n" && k + 1 < argc) {
      char* end = nullptr;
      n = std::strtoll(argv[++k], &end, 10);
      if (*end != '\0' || n < 1) n = -1;
    } else if (a == "--expect-no-compiles") {
      expect_no_compiles = true;
    } else {
      n = -1;
    }
  }
  if (n < 1) {
    if (rank == 0) std::fprintf(stderr, "usage: sample_mpi_slices [--n N] [--expect-no-compiles]\n");
    MPI_Finalize();
    return 3;
  }

  int gpus = 0;
  if (cudaGetDeviceCount(&gpus) != cudaSuccess) gpus = 0;
  const long long start = n * rank / size, stop = n * (rank + 1) / size;
  Report mine;
  try {
    mine = run_slice(start, stop - start, gpus > 0 ? rank % gpus : -1);
  } catch (const std::exception& e) {
    mine.failed = 1;
    std::snprintf(mine.error, sizeof mine.error, "%s", e.what());
  }

  std::vector<Report> all(static_cast<std::size_t>(size));
  MPI_Gather(&mine, sizeof(Report), MPI_BYTE, all.data(), sizeof(Report), MPI_BYTE, 0, MPI_COMM_WORLD);
  int rc = 0;
  if (rank == 0) {
    double total = 0;
    long long covered = 0;
    bool on_cpu = false;
    for (int r = 0; r < size; ++r) {
      const Report& x = all[static_cast<std::size_t>(r)];
      on_cpu = on_cpu || x.gpu < 0;
      std::printf("rank %d: %lld elements on %s, %llu compiles, %llu disk-cache hits, max %lld ulp from the formula%s%s\n",
                  r, x.count, x.gpu >= 0 ? ("GPU " + std::to_string(x.gpu)).c_str() : "the CPU", x.compiles,
                  x.disk_hits, x.max_ulp, x.failed ? ": FAILED: " : "", x.error);
      if (x.failed) rc = 1;
      if (expect_no_compiles && x.compiles > 0 && rc == 0) rc = 2;
      total += x.sum;
      covered += x.count;
    }
    if (covered != n) {
      std::printf("the slices cover %lld of %lld elements\n", covered, n);
      rc = 1;
    }
    if (rc != 1) {
      // The whole job from the formula alone: the slices must add up to it.
      double want = 0;
      for (long long k = 0; k < n; ++k) {
        const Inputs v = formula_inputs(k);
        want += formula_out(v.x, v.y);
      }
      double rel = std::fabs(total - want) / std::max(1.0, std::fabs(want));
      std::printf("sum of out over %d ranks: %.9g, the formula's: %.9g (relative difference %.1e)\n", size, total,
                  want, rel);
      if (rel > 1e-6) rc = 1;
    }
    if (rc == 2) std::printf("a rank compiled a kernel, but --expect-no-compiles was given\n");
    if (rc == 0 && expect_no_compiles && on_cpu) {
      std::printf("--expect-no-compiles needs every rank on a GPU: the CPU evaluator compiles nothing, so it would "
                  "prove nothing\n");
      rc = 3;
    }
    std::printf("%s\n", rc == 0 ? "mpi_slices: ok" : "mpi_slices: FAILED");
  }
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return rc;
}

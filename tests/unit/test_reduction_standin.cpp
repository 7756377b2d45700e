// Precompiling programs with reductions against the calls themselves, with no
// GPU: on the stand-in driver (tests/fake_driver, mode "pool": modules load,
// kernels do nothing) a call runs the GPU back end's real passes, so every
// kernel it looks up is one the precompiled manifest must already have put in
// the cache. In a process of its own (CTest entry reduce_standin); the values
// are checked on a real GPU by tests/gpu/test_deploy_gpu.cpp.
#include <cstdlib>
#include <string>
#include <vector>

#include "api/manifest.hpp"
#include "catch.hpp"
#include "cujit/cache.hpp"
#include "cujit/elementwise.hpp"
#include "cujit/evaluate.hpp"
#include "cujit/precompile.hpp"
#include "skip.hpp"

using namespace cujit;

namespace {

Array zeros(DType t, const Shape& s) {
  HostArray h(t, s);
  return Array::copy_of(h.view(), Device::cuda(0));
}

}  // namespace

TEST_CASE("stand-in driver: calls with reductions compile nothing that their precompiled shapes cover",
          "[.][fake_reduce]") {
  const char* mode = std::getenv("CUJIT_FAKE_CUDA");
  REQUIRE(std::string(mode ? mode : "") == "pool");
  if (!manifest_supported()) CUJIT_SKIP("this build has no toml++ (libtomlplusplus-dev): manifests are not read");
  // Every kind of pass: fused maps (rows, group and columns kernels), a map
  // kernel for a host scalar, a copy for axes that are not adjacent, a row
  // normalisation, epilogues reading earlier results, reductions the host
  // does (complex, nanmax), an input updated in place, a raw input.
  const std::vector<std::string> programs = {
      "s = sum(x*y); m = max(x*a, axis=0); c = mean(x, axis=(0, 2)); out = x / s + b",
      "z = (x - mean(x, axis=-1, keepdims=true)) / std(x, axis=-1, keepdims=true)",
      "k = argmax(x, axis=1); v = var(x, axis=0, ddof=1); q = nanmax(x); p = prod(x > 0.5)",
      "x -= max(x, axis=0)",
      "out = x / sum(x) + r[i % size(r)]",
  };
  const char* manifest = R"M(
[[kernel]]
program = "s = sum(x*y); m = max(x*a, axis=0); c = mean(x, axis=(0, 2)); out = x / s + b"
inputs = ["x=T", "y=T", "a=T:scalar", "b=float64:weak"]
types = { T = ["float32", "float16"] }
shapes = [{ x = [8, 30, 40], y = [8, 30, 40] }, { x = [3, 1000, 5], y = [1] }]

[[kernel]]
program = "z = (x - mean(x, axis=-1, keepdims=true)) / std(x, axis=-1, keepdims=true)"
inputs = ["x=T"]
types = { T = ["float64", "float32"] }
shapes = [{ x = [64, 500] }, { x = [2, 100000] }, { x = [16, 1024] }]

[[kernel]]
program = "k = argmax(x, axis=1); v = var(x, axis=0, ddof=1); q = nanmax(x); p = prod(x > 0.5)"
inputs = ["x=float32"]
shapes = [{ x = [100, 7] }]

[[kernel]]
program = "x -= max(x, axis=0)"
inputs = ["x=int32"]
shapes = [{ x = [50, 64] }]

[[kernel]]
program = "out = x / sum(x) + r[i % size(r)]"
inputs = ["x=complex64", "r=complex64:raw"]
shapes = [{ x = [300], r = [7] }]

[[kernel]]
name = "rownorm_standin"
in_params = "T x"
out_params = "T z"
operation = "z = (x - mean(x, axis=-1, keepdims=true)) / std(x, axis=-1, keepdims=true)"
types = { T = ["float32"] }
shapes = [{ x = [256, 1000] }]
)M";
  PrecompileOptions po;
  po.archs = {"sm_90"};  // the stand-in device's
  PrecompileReport r = precompile_manifest(manifest, "standin.toml", po);
  INFO((r.errors.empty() ? std::string() : r.errors[0]));
  REQUIRE(r.failed == 0);
  const KernelCacheStats before = kernel_cache_stats();

  for (DType t : {DType::Float32, DType::Float16})
    for (const auto& [xs, ys] : {std::pair<Shape, Shape>{Shape{8, 30, 40}, Shape{8, 30, 40}},
                                std::pair<Shape, Shape>{Shape{3, 1000, 5}, Shape{1}}}) {
      INFO(dtype_name(t) << " " << to_string(xs));
      evaluate(programs[0], {{"x", zeros(t, xs)}, {"y", zeros(t, ys)}, {"a", Arg::typed(t, 2.0)}, {"b", 0.5}});
    }
  // Rows of 1024 float32 fill the kernel's registers exactly (no lane past the row's end).
  for (DType t : {DType::Float64, DType::Float32})
    for (const Shape& s : {Shape{64, 500}, Shape{2, 100000}, Shape{16, 1024}}) evaluate(programs[1], {{"x", zeros(t, s)}});
  evaluate(programs[2], {{"x", zeros(DType::Float32, Shape{100, 7})}});
  evaluate(programs[3], {{"x", zeros(DType::Int32, Shape{50, 64})}});
  evaluate(programs[4], {{"x", zeros(DType::Complex64, Shape{300})}, {"r", zeros(DType::Complex64, Shape{7})}});
  ElementwiseKernel k("T x", "T z", "z = (x - mean(x, axis=-1, keepdims=true)) / std(x, axis=-1, keepdims=true)",
                      "rownorm_standin");
  const Array x = zeros(DType::Float32, Shape{256, 1000});
  Array z = zeros(DType::Float32, Shape{256, 1000});
  k(x, z);  // outputs given: the row normalisation
  k(x);     // allocated, with the broadcast shape as the call's: its passes one by one

  const KernelCacheStats after = kernel_cache_stats();
  CHECK(after.compiles == before.compiles);
  CHECK(after.memory_hits > before.memory_hits);
}

// After precompiling, an application compiles nothing: the launcher finds
// every precompiled kernel (the counters show zero compiles), in this process
// and in a fresh one.
#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_all.hpp>
#else
#include <catch2/catch.hpp>
#endif

#include <cmath>
#include <cstdio>
#include <filesystem>
#include <random>
#include <string>

#include "cujit/cache.hpp"
#include "cujit/elementwise.hpp"
#include "cujit/evaluate.hpp"
#include "cujit/npy.hpp"
#include "cujit/precompile.hpp"
#include "core/driver.hpp"
#include "gpu_util.hpp"
#include "cache/kernel_cache.hpp"
#include "api/manifest.hpp"
#include "skip.hpp"

using namespace cujit;

TEST_CASE("Precompiled kernels: calls of every layout compile nothing", "[gpu][deploy][manifest]") {
  if (!manifest_supported()) CUJIT_SKIP("this build has no toml++ (libtomlplusplus-dev): manifests are not read");
  const char* manifest = R"(
[[kernel]]
name = "deploy_fma"
in_params = "T x, T y"
out_params = "T z"
operation = "z = x * y + 1"
types = { T = ["float32", "float16", "int8", "bfloat16", "uint8", "int16"] }
layouts = ["contiguous", "broadcast"]
)";
  PrecompileReport r = precompile_manifest(manifest, "gpu.toml");  // for GPU 0's arch
  REQUIRE(r.failed == 0);
  CHECK(r.compiled + r.cached == 12);
  const std::uint64_t before = cache::global_cache().counters().compiles;
  ElementwiseKernel k("T x, T y", "T z", "z = x * y + 1", "deploy_fma");  // a new object: nothing in it yet
  for (DType t : {DType::Float32, DType::Float16, DType::Int8, DType::BFloat16, DType::UInt8, DType::Int16}) {
    INFO(dtype_name(t));
    Array x = Array::empty(t, Shape{1024}, Device::cuda(0)), y = Array::empty(t, Shape{1024}, Device::cuda(0));
    auto out = k(x, y);  // contiguous
    CHECK(out[0].dtype() == t);
    // broadcast: rows over 2-d outputs. Rows a multiple of 16 bytes long, the
    // manifest's "broadcast" layout (the vector step of a rows layout depends
    // on the row length's alignment, see precompile.hpp).
    Array z = Array::empty(t, Shape{8, 1024}, Device::cuda(0));
    k(x, y, z);
    synchronize(0, nullptr);
  }
  CHECK(cache::global_cache().counters().compiles == before);
}

TEST_CASE("A kernel jitrun --emit compiled is the one a fresh process launches", "[gpu][deploy][manifest]") {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("cujit-gpu-deploy-" + std::to_string(gputest::run_seed()));
  fs::remove_all(dir);
  auto run = [&](const std::string& args) {
    const auto [status, out] =
        gputest::shell_output("CUJIT_CACHE_DIR='" + dir.string() + "' '" + CUJIT_JITRUN + "' " + args + " 2>&1");
    CHECK(status == 0);
    return out;
  };
  for (const char* dt : {"int8", "float16", "float32"}) {
    std::string in = std::string("-i 'x=arange(100):") + dt + "' 'out = x * 3 + 1'";
    std::string emit = run("--emit ptx " + in);
    std::string launch = run("--device 0 -v " + in);
    INFO(launch);
    CHECK(launch.find("(disk cache hit)") != std::string::npos);
  }
  fs::remove_all(dir);
}

namespace {

// Float32 or float64 values in [0.5, 4): sums of one sign, so GPU and CPU
// agree to a relative 1e-5 whatever order each adds in.
HostArray positive(DType t, const Shape& s, std::mt19937_64& rng) {
  HostArray a(t, s);
  std::uniform_real_distribution<double> u(0.5, 4.0);
  for (std::int64_t k = 0; k < a.size(); ++k) {
    if (t == DType::Float32) a.as<float>()[k] = static_cast<float>(u(rng));
    else a.as<double>()[k] = u(rng);
  }
  return a;
}

// The GPU's result against the CPU evaluator's: same dtype and shape, each
// element within 1e-4 * (1 + |want|).
void check_close(const Array& got_dev, const Array& want) {
  Array got = got_dev.to_host();
  REQUIRE(got.dtype() == want.dtype());
  REQUIRE(got.shape() == want.shape());
  for (std::int64_t k = 0; k < want.size(); ++k) {
    const double g = got.dtype() == DType::Float32 ? static_cast<const float*>(got.data())[k]
                                                    : static_cast<const double*>(got.data())[k];
    const double w = want.dtype() == DType::Float32 ? static_cast<const float*>(want.data())[k]
                                                     : static_cast<const double*>(want.data())[k];
    INFO("element " << k << ": GPU " << g << ", CPU " << w);
    REQUIRE(std::fabs(g - w) <= 1e-4 * (1 + std::fabs(w)));
  }
}

Array poisoned(DType t, const Shape& s) {
  Array a = Array::empty(t, s, Device::cuda(0));
  gputest::poison(a.view(), a.nbytes());
  return a;
}

}  // namespace

TEST_CASE("Precompiled programs with reductions: calls of those shapes compile nothing", "[gpu][deploy][manifest]") {
  if (!manifest_supported()) CUJIT_SKIP("this build has no toml++ (libtomlplusplus-dev): manifests are not read");
  // A fused sum, a map with a host scalar (a map kernel, then columns), axes
  // that are not adjacent (a copy), an epilogue; a row normalisation in one
  // pass; the ElementwiseKernel form with a typed scalar.
  const std::string prog = "s = sum(x*y); m = max(x*a, axis=0); c = mean(x, axis=(0, 2)); out = x / s";
  const std::string norm = "z = (x - mean(x, axis=-1, keepdims=true)) / std(x, axis=-1, keepdims=true)";
  const std::string manifest = R"M(
[[kernel]]
program = ")M" + prog + R"M("
inputs = ["x=float32", "y=float32", "a=float32:scalar"]
shapes = [{ x = [8, 30, 40], y = [8, 30, 40] }, { x = [3, 1000, 5], y = [1] }]

[[kernel]]
name = "rownorm_deploy"
in_params = "T x"
out_params = "T z"
operation = ")M" + norm + R"M("
types = { T = ["float32", "float64"] }
shapes = [{ x = [256, 1000] }]

[[kernel]]
name = "scaled_deploy"
in_params = "T x, T a"
out_params = "T m"
operation = "m = max(x*a, axis=0)"
types = { T = ["float32"] }
scalars = { a = "float32" }
shapes = [{ x = [256, 1000] }]
)M";
  PrecompileReport r = precompile_manifest(manifest, "gpu_reductions.toml");  // for GPU 0's arch
  INFO((r.errors.empty() ? std::string() : r.errors[0]));
  REQUIRE(r.failed == 0);
  CHECK(r.compiled + r.cached >= 10);
  std::mt19937_64 rng(gputest::run_seed());
  const std::uint64_t before = kernel_cache_stats().compiles;

  for (const auto& [xs, ys] : {std::pair<Shape, Shape>{Shape{8, 30, 40}, Shape{8, 30, 40}},
                              std::pair<Shape, Shape>{Shape{3, 1000, 5}, Shape{1}}}) {
    INFO(to_string(xs) << " " << to_string(ys));
    HostArray x = positive(DType::Float32, xs, rng), y = positive(DType::Float32, ys, rng);
    const Arg a = Arg::typed(DType::Float32, 1.5);
    Array dx = Array::copy_of(x.view(), Device::cuda(0)), dy = Array::copy_of(y.view(), Device::cuda(0));
    NamedArrays gpu = evaluate(prog, {{"x", dx}, {"y", dy}, {"a", a}});
    NamedArrays cpu = evaluate(prog, {{"x", x}, {"y", y}, {"a", a}});
    // s is read by a later statement: a local, not an output (docs/language.md).
    for (const char* o : {"m", "c", "out"}) {
      INFO(o);
      CHECK(gpu[o].device() == Device::cuda(0));
      check_close(gpu[o], cpu[o]);
    }
  }
  for (DType t : {DType::Float32, DType::Float64}) {
    INFO(dtype_name(t));
    ElementwiseKernel k("T x", "T z", norm, "rownorm_deploy");  // new objects: nothing in them yet
    HostArray x = positive(t, Shape{256, 1000}, rng);
    Array dz = poisoned(t, Shape{256, 1000});
    k(Array::copy_of(x.view(), Device::cuda(0)), dz);
    check_close(dz, k(x)[0]);
  }
  {
    ElementwiseKernel k("T x, T a", "T m", "m = max(x*a, axis=0)", "scaled_deploy");
    HostArray x = positive(DType::Float32, Shape{256, 1000}, rng);
    const Arg a = Arg::typed(DType::Float32, -2.0);
    Array dm = poisoned(DType::Float32, Shape{1000});
    k(Array::copy_of(x.view(), Device::cuda(0)), a, dm);
    HostArray m(DType::Float32, Shape{1000});
    k(x, a, m.view());
    check_close(dm, Array::copy_of(m.view(), Device::cpu()));
  }
  synchronize(0, nullptr);
  CHECK(kernel_cache_stats().compiles == before);
}

TEST_CASE("Recorded programs with reductions, precompiled, spare a fresh process every compile",
          "[gpu][deploy][manifest]") {
  namespace fs = std::filesystem;
  const fs::path dir = fs::temp_directory_path() / ("cujit-gpu-redrec-" + std::to_string(gputest::run_seed()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  auto run = [&](const std::string& env, const std::string& cmd) {
    const auto [status, out] = gputest::shell_output(env + " " + cmd + " 2>&1");
    INFO(cmd << "\n" << out);
    CHECK(status == 0);
    return out;
  };
  // Inputs from .npy files: uploads, not the GPU generators' fill kernels.
  std::mt19937_64 rng(gputest::run_seed());
  save_npy((dir / "x.npy").string(), positive(DType::Float32, Shape{64, 100}, rng));
  save_npy((dir / "w.npy").string(), positive(DType::Float32, Shape{100}, rng));
  const std::string in = "-i x=" + (dir / "x.npy").string() + " -i w=" + (dir / "w.npy").string() + " -i a=2.0f";
  const std::string jitrun = std::string("'") + CUJIT_JITRUN + "' --device 0 -v " + in;
  const std::string rec = (dir / "rec.toml").string();
  for (const char* prog : {"'s = sum(x*w); m = max(x*a, axis=0); out = x / s'",
                           "'z = (x - mean(x, axis=1, keepdims=true)) / std(x, axis=1, keepdims=true)'"})
    run("CUJIT_CACHE_DIR='" + (dir / "a").string() + "' CUJIT_RECORD='" + rec + "'", jitrun + " " + prog);
  const std::string b = "CUJIT_CACHE_DIR='" + (dir / "b").string() + "'";
  std::string pre = run(b, std::string("'") + CUJIT_JITCACHE + "' precompile '" + rec + "'");
  CHECK(pre.find(" 0 failed") != std::string::npos);
  for (const char* prog : {"'s = sum(x*w); m = max(x*a, axis=0); out = x / s'",
                           "'z = (x - mean(x, axis=1, keepdims=true)) / std(x, axis=1, keepdims=true)'"}) {
    std::string out = run(b, jitrun + " " + prog);
    INFO(out);
    CHECK(out.find(", 0 compiles (") != std::string::npos);
  }
  fs::remove_all(dir);
}

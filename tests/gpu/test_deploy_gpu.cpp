// After precompiling, an application compiles nothing: the launcher finds
// every precompiled kernel (the counters show zero compiles), in this process
// and in a fresh one.
#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_all.hpp>
#else
#include <catch2/catch.hpp>
#endif

#include <cstdio>
#include <filesystem>
#include <string>

#include "cujit/elementwise.hpp"
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
    std::string cmd = "CUJIT_CACHE_DIR='" + dir.string() + "' '" + CUJIT_JITRUN + "' " + args + " 2>&1";
    std::string out;
    FILE* f = popen(cmd.c_str(), "r");
    REQUIRE(f);
    char buf[4096];
    while (std::size_t n = std::fread(buf, 1, sizeof buf, f)) out.append(buf, n);
    CHECK(pclose(f) == 0);
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

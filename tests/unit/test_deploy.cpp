// Precompiling: what a manifest or ElementwiseKernel::precompile puts in the
// cache is exactly what a launch looks up (same layout planning, same key),
// for every dtype; recipes (record mode) make the same kernels again.
#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_all.hpp>
#else
#include <catch2/catch.hpp>
#endif

#include <string>

#include "lang/check.hpp"
#include "gpu/codegen.hpp"
#include "gpu/compile.hpp"
#include "cujit/elementwise.hpp"
#include "cujit/error.hpp"
#include "cujit/precompile.hpp"
#include "cache/kernel_cache.hpp"
#include "gpu/kernel_key.hpp"
#include "gpu/launch.hpp"
#include "api/manifest.hpp"
#include "api/precompile.hpp"
#include "cache/record.hpp"
#include "skip.hpp"

using namespace cujit;

namespace {

// The views a launch of `p` over fresh device arrays (cudaMalloc'd: 256-byte
// aligned, C-contiguous) hands plan_launch, built here as the launcher builds
// them, independently of precompile's stand-ins.
LaunchPlan launch_plan(const Program& p, std::int64_t n) {
  std::vector<OperandView> in, out;
  std::uintptr_t at = 0x7f0000000000;
  Shape s;
  s.ndim = 1;
  s[0] = n;
  for (const Param& q : p.inputs) {
    in.push_back(OperandView{at, q.dtype, s, ArrayView::contiguous_strides(s, q.dtype), false});
    at += 1 << 20;
  }
  for (const Var& v : p.outputs) {
    out.push_back(OperandView{at, v.dtype, s, ArrayView::contiguous_strides(s, v.dtype), false});
    at += 1 << 20;
  }
  return plan_launch(p, in, out, GpuOptions{}.max_vector);
}

cache::Key launch_key(const Program& p, const KernelLayout& l, const std::string& kernel_name, int arch) {
  CompileOptions co;
  co.arch = arch;
  return kernel_cache_key(generate_source(p, l, kernel_name), co);
}

std::string layout_for_test(const GpuProgram& g, const std::string& kind, bool index64) {
  return layout_for(g, {}, kind, index64, 2).key_string();
}

}  // namespace

TEST_CASE("precompile: a manifest's kernels have the launcher's cache keys, every dtype", "[deploy][manifest]") {
  if (!manifest_supported()) CUJIT_SKIP("this build has no toml++ (libtomlplusplus-dev): manifests are not read");
  std::string manifest =
      "[[kernel]]\nprogram = \"out = x\"\ninputs = [\"x=T\"]\ntypes = { T = [\"bool\", \"int8\", \"uint8\", \"int16\", "
      "\"uint16\", \"int32\", \"uint32\", \"int64\", \"uint64\", \"float16\", \"bfloat16\", \"float32\", \"float64\", "
      "\"complex64\", \"complex128\"] }\n";
  PrecompileOptions po;
  po.archs = {"sm_90"};
  po.jobs = 2;
  PrecompileReport r = precompile_manifest(manifest, "keys.toml", po);
  CHECK(r.failed == 0);
  CHECK(r.compiled + r.cached == kNumDTypes);
  const int arch = cap_arch(90);
  for (int t = 0; t < kNumDTypes; ++t) {
    const DType d = static_cast<DType>(t);
    INFO(dtype_name(d));
    Program p = compile_program("out = x", {Param{"x", d, false, false}});
    KernelLayout l = launch_plan(p, 1000).layout;
    CHECK(l.vec == static_cast<int>(16 / dtype_size(d)));  // 16 int8, 8 float16, ..., 1 complex128
    cache::Key key = launch_key(p, l, "cujit_kernel", arch);
    bool compiled = false;
    cache::global_cache().get_or_compile(key, "sm_" + std::to_string(arch), [&] {
      compiled = true;
      return cache::Entry{};
    });
    CHECK_FALSE(compiled);  // found: precompile stored exactly this key
  }
}

TEST_CASE("precompile: 64-bit, strided and broadcast layouts are the launcher's", "[deploy][manifest]") {
  if (!manifest_supported()) CUJIT_SKIP("this build has no toml++ (libtomlplusplus-dev): manifests are not read");
  auto p = std::make_shared<Program>(compile_program("out = x * y", {Param{"x", DType::Int8, false, false},
                                                                       Param{"y", DType::Int8, false, false}}));
  GpuProgram g(p, GpuOptions{});
  KernelLayout big = launch_plan(*p, (std::int64_t{1} << 31) + 5).layout;
  CHECK(big.key_string() == "c.i64.v16|o:c|i:c,c");
  CHECK(layout_for_test(g, "contiguous", true) == big.key_string());
  CHECK(layout_for_test(g, "contiguous", false) == "c.i32.v16|o:c|i:c,c");
  CHECK(layout_for_test(g, "strided", false) == "s.i32.d2|o:s|i:s,s");
  CHECK(layout_for_test(g, "broadcast", false) == "r.i32.v16.d2|o:s|i:s,s");
  CHECK(layout_for_test(g, "broadcast", true) == "r.i64.v16.d2|o:s|i:s,s");
  // Exact layout strings, rows ones included, parse back to themselves.
  for (const char* key : {"r.i32.v16.d2|o:s|i:s,s", "r.i64.v1.d3|o:s|i:b,s", "s.i32.d2|o:s|i:s,s", "c.i32.v8|o:c|i:c,u",
                          "t.i32.v4.l4.s2.d2|o:s|i:t,s", "t.i64.v1.l1.s1.d3|o:s|i:t,s"})
    CHECK(layout_for_test(g, key, false) == key);
  CHECK_THROWS_AS(layout_for_test(g, "r.i32.d2|o:s|i:s,s", false), Error);  // rows need a vector step
  CHECK_THROWS_AS(layout_for_test(g, "t.i32.d2|o:s|i:t,s", false), Error);  // tiles need their vectors
}

TEST_CASE("precompile: a recorded recipe makes the same kernel again", "[deploy][manifest]") {
  if (!manifest_supported()) CUJIT_SKIP("this build has no toml++ (libtomlplusplus-dev): manifests are not read");
  auto p = std::make_shared<Program>(compile_program("out = where(x > 0, x, -x) * a",
                                                     {Param{"x", DType::Float16, false, false},
                                                      Param{"a", DType::Float64, true, false}}));
  GpuOptions go;
  go.kernel_name = "jitrun";
  GpuProgram g(p, go);
  KernelLayout l = launch_plan(*p, 64).layout;
  bool compiled = false;
  g.compile(l, 90, &compiled);
  std::string recipe = g.recipe(l, 90);
  CHECK(recipe == "[[kernel]]\nname = \"jitrun\"\nprogram = \"out = where(x > 0, x, -x) * a\"\n"
                  "inputs = [\"x=float16\", \"a=float64:weak\"]\nlayouts = [\"c.i32.v8|o:c|i:c,v\"]\narch = [\"sm_90\"]\n");
  PrecompileReport r = precompile_manifest(recipe, "recipe.toml");
  CHECK(r.failed == 0);
  CHECK(r.compiled == 0);
  CHECK(r.cached == 1);
  // The recipe rides along in the entry's PTX.
  CHECK(recipe_from_ptx(g.compile(l, 90)->ptx) == recipe);
}

TEST_CASE("ElementwiseKernel::precompile: bindings, layouts, errors", "[deploy]") {
  ElementwiseKernel k("T x, T y, float32 a", "T z", "z = a * x + y", "deploy_axpy");
  PrecompileOptions po;
  po.archs = {"sm_90"};
  PrecompileReport r = k.precompile({{"T", DType::Int8}}, {"contiguous", "strided", "broadcast"}, {{"a", "float"}}, po);
  CHECK(r.failed == 0);
  CHECK(r.compiled + r.cached == 3);
  try {
    k.precompile({}, {"contiguous"}, {}, po);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Usage);
    CHECK(std::string(e.what()) == "kernel 'deploy_axpy': input 'x' is of placeholder T, which types does not bind");
  }
  try {
    k.precompile({{"T", DType::Int8}}, {"diagonal"}, {{"a", "float"}}, po);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(std::string(e.what()) == "unknown layout 'diagonal' (use contiguous, strided or broadcast)");
  }
}

TEST_CASE("manifest: errors name file, line, column and field", "[deploy][manifest]") {
  if (!manifest_supported()) CUJIT_SKIP("this build has no toml++ (libtomlplusplus-dev): manifests are not read");
  auto error_of = [](const std::string& text) {
    try {
      parse_manifest(text, "m.toml");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::Data);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_of("[[kernel]]\nname = \"k\"\nprogram = \"out = x\"\ninputs = [\"x\"]\n") ==
        "m.toml:4:11: kernel 'k': 'inputs': 'x' is not NAME=DTYPE[:weak|:raw|:scalar], e.g. \"x=float32\"");
  CHECK(error_of("[[kernel]]\nname = \"k\"\nprogram = \"out = x\"\ninputs = [\"x=float32\"]\nndim = 9\n") ==
        "m.toml:5:8: kernel 'k': 'ndim': expected an integer from 1 to 8 (dimensions of strided layouts)");
  CHECK(error_of("[[kernel]]\nname = \"k\"\nprogram = \"out = x\"\ninputs = [\"x=float32\"]\narch = [\"sm9\"]\n") ==
        "m.toml:5:9: kernel 'k': 'arch': 'sm9': expected sm_XX, e.g. sm_90");
  CHECK(error_of("[[kernel]]\nname = \"k\"\noperation = \"z = x\"\nout_params = \"T z\"\nscalars = { x = \"double!\" }\n") ==
        "m.toml:5:17: kernel 'k': 'scalars.x': 'double!' is not a scalar kind: use int, float or complex (a C++ number: "
        "weak) or a dtype (a typed scalar)");
  CHECK(error_of("[[kernel]]\nprogram = 3\n") == "m.toml:2:11: kernel #1: 'program': expected a string, got an integer");
  // Input toml++ 3.3 does not survive (fuzz_manifest found it) is a syntax error.
  CHECK(error_of("a = 1\n[[+ernera]\n") == "m.toml:2:3: TOML syntax error: a table header needs a key after '['");
  CHECK(error_of("a = \"\"\"\n[+ inside a string\"\"\"\n[b]\n").find("table header") == std::string::npos);
  CHECK(error_of("a = 1\n\xef\xbb\x90[\n") ==
        "m.toml:2:1: TOML syntax error: non-ASCII text; manifests are ASCII: write it as a \\uXXXX escape in a string");
  CHECK(error_of("a = \"caf\xc3\xa9\"\n") ==
        "m.toml:1:9: TOML syntax error: non-ASCII text; manifests are ASCII: write it as a \\uXXXX escape in a string");
  // Record mode writes non-ASCII as escapes, which read back as the same text.
  CHECK(toml_quote("caf\xc3\xa9 \xf0\x9f\x98\x80 \xff") == "\"caf\\u00E9 \\U0001F600 \\uFFFD\"");
  Manifest m = parse_manifest("[[kernel]]\nprogram = " + toml_quote("out = x // caf\xc3\xa9") + "\ninputs = [\"x=float32\"]\n", "m.toml");
  CHECK(m.kernels.at(0).program == "out = x // caf\xc3\xa9");
  CHECK(error_of("version = 2\n") == "m.toml:1:11: 'version': this cujit reads manifest version 1");
}

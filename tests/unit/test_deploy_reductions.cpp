// Precompiling programs with reductions, with no GPU: the kernels a call's
// passes compile (reduction_kernels, the call's own planning code run on
// stand-in arrays) are what a manifest with shapes puts in the cache, and
// what record mode's entry makes again; a bad entry is a clear error.
#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_all.hpp>
#else
#include <catch2/catch.hpp>
#endif

#include <memory>
#include <string>
#include <vector>

#include "api/manifest.hpp"
#include "api/reduce_call.hpp"
#include "cache/kernel_cache.hpp"
#include "cache/record.hpp"
#include "cujit/error.hpp"
#include "cujit/precompile.hpp"
#include "gpu/compile.hpp"
#include "gpu/kernel_key.hpp"
#include "gpu/launch.hpp"
#include "lang/check.hpp"
#include "skip.hpp"

using namespace cujit;

namespace {

std::shared_ptr<const Program> program_of(const std::string& text, const std::vector<Param>& params) {
  return std::make_shared<Program>(compile_program(text, params));
}

Param f32(const char* name) { return Param{name, DType::Float32, false, false}; }

// The kernels of a call of `text` on float32 inputs of these shapes.
std::vector<PassKernel> kernels_of(const GpuProgram& g, const std::vector<Shape>& shapes) {
  return reduction_kernels(g, shapes, std::vector<bool>(shapes.size(), false));
}

// Whether the cache holds `k` for sm_<arch>, under the key a launch looks up.
bool cached(const PassKernel& k, int arch) {
  CompileOptions co;
  co.arch = arch;
  if (k.program) {
    co.fast_math = k.program->options().fast_math;
    co.extra = k.program->options().nvrtc_options;
  }
  const cache::Key key = kernel_cache_key(k.program ? k.program->source(k.layout) : k.source, co);
  bool compiled = false;
  cache::global_cache().get_or_compile(key, "sm_" + std::to_string(arch), [&] {
    compiled = true;
    return cache::Entry{};
  });
  return !compiled;
}

std::string precompile_error(const std::string& manifest) {
  PrecompileOptions po;
  po.archs = {"sm_90"};
  PrecompileReport r = precompile_manifest(manifest, "r.toml", po);
  if (r.errors.size() != 1) return "errors: " + std::to_string(r.errors.size());
  CHECK(r.exit_code == static_cast<int>(ErrorCode::Data));
  return r.errors[0];
}

}  // namespace

TEST_CASE("reduction_kernels: each pass's kernels, what they read and write", "[deploy]") {
  GpuProgram dot(program_of("s = sum(x*y)", {f32("x"), f32("y")}), GpuOptions{});
  std::vector<PassKernel> k = kernels_of(dot, {Shape{1000}, Shape{1000}});
  REQUIRE(k.size() == 1);  // the map fused into the reduction, which writes s itself
  CHECK(k[0].pass == 1);
  CHECK(k[0].role == "reduction, map fused");
  CHECK(k[0].name == "cj_reduce_rows");
  CHECK(k[0].what == "rows t256 v4x4 fold-as-loaded vector loads");
  CHECK(k[0].reads == "input x, input y");
  CHECK(k[0].writes == "output s");

  // Rows normalised in one pass: one kernel for every pass.
  GpuProgram norm(program_of("z = (x - mean(x, axis=1, keepdims=true)) / std(x, axis=1, keepdims=true)", {f32("x")}),
                  GpuOptions{});
  k = kernels_of(norm, {Shape{64, 100}});
  REQUIRE(k.size() == 1);
  CHECK(k[0].pass == 0);
  CHECK(k[0].name == "cj_reduce_rownorm");
  CHECK(k[0].writes == "output z");

  // Axes that are not adjacent: the input copied kept axes first, then
  // reduced; an epilogue of its own; a NaN-ignoring max reduced on the host.
  GpuProgram mixed(program_of("m = sum(x, axis=(0, 2)); out = x / max(x) + 1; t = nanmax(x)", {f32("x")}), GpuOptions{});
  k = kernels_of(mixed, {Shape{4, 5, 6}});
  REQUIRE(k.size() == 5);
  CHECK(k[0].role == "copy");
  CHECK(k[0].reads == "input x");
  CHECK(k[0].writes == "map of pass 1 (temporary), in the order [kept axes, reduced axes]");
  CHECK(k[0].layout.key_string() == "r.i32.v2.d3|o:s|i:s");  // rows of the output, read with strides
  CHECK(k[1].role == "reduction");
  CHECK(k[1].reads == "map of pass 1 (temporary)");
  CHECK(k[1].writes == "output m");
  CHECK(k[2].pass == 2);
  CHECK(k[2].writes == "result of pass 2");
  CHECK(k[3].pass == 3);
  CHECK(k[3].note.rfind("reduced on the host", 0) == 0);
  CHECK(k[4].pass == 5);
  CHECK(k[4].role == "elementwise");
  CHECK(k[4].reads == "input x, result of pass 2");
  CHECK(k[4].writes == "output out");

  // A map reading a scalar passed from the host is a map kernel of its own.
  GpuProgram scaled(program_of("m = max(x*a, axis=0)", {f32("x"), f32("a")}), GpuOptions{});
  k = reduction_kernels(scaled, {Shape{100, 64}, Shape{}}, {false, true});
  REQUIRE(k.size() == 2);
  CHECK(k[0].role == "map");
  CHECK(k[0].layout.key_string() == "c.i32.v4|o:c|i:c,v");
  CHECK(k[1].name == "cj_reduce_cols");
}

TEST_CASE("precompile: a program with reductions puts every kernel of its passes in the cache", "[deploy][manifest]") {
  if (!manifest_supported()) CUJIT_SKIP("this build has no toml++ (libtomlplusplus-dev): manifests are not read");
  const char* manifest = R"M(
[[kernel]]
program = "s = sum(x*y); m = max(x, axis=0); z = x - mean(x, axis=-1, keepdims=true)"
inputs = ["x=T", "y=T"]
types = { T = ["float32", "float16"] }
shapes = [{ x = [300, 64], y = [300, 64] }, { x = [2, 100000], y = [1] }]
)M";
  PrecompileOptions po;
  po.archs = {"sm_90"};
  po.jobs = 2;
  PrecompileReport r = precompile_manifest(manifest, "reductions.toml", po);
  INFO((r.errors.empty() ? std::string() : r.errors[0]));
  CHECK(r.failed == 0);
  CHECK(r.compiled + r.cached > 0);
  const int arch = cap_arch(90);
  std::size_t found = 0;
  for (DType t : {DType::Float32, DType::Float16}) {
    INFO(dtype_name(t));
    GpuProgram g(program_of("s = sum(x*y); m = max(x, axis=0); z = x - mean(x, axis=-1, keepdims=true)",
                            {Param{"x", t, false, false}, Param{"y", t, false, false}}),
                 GpuOptions{});
    for (const std::vector<Shape>& shapes : {std::vector<Shape>{Shape{300, 64}, Shape{300, 64}},
                                            std::vector<Shape>{Shape{2, 100000}, Shape{1}}})
      for (const PassKernel& k : kernels_of(g, shapes)) {
        INFO("pass " << k.pass << " " << k.role << " " << (k.program ? k.layout.key_string() : k.what));
        if (!k.note.empty()) continue;
        CHECK(cached(k, arch));
        ++found;
      }
  }
  CHECK(found >= r.compiled + r.cached);  // the same kernel may serve two passes or shapes
}

TEST_CASE("precompile: record mode's entry of a program with reductions makes its kernels again", "[deploy][manifest]") {
  if (!manifest_supported()) CUJIT_SKIP("this build has no toml++ (libtomlplusplus-dev): manifests are not read");
  // x an array, a a typed scalar from the host, b a weak (Python) scalar.
  const std::string text = "m = max(x*a, axis=0); out = x / sum(x) + b";
  GpuOptions go;
  go.kernel_name = "jitrun";
  GpuProgram g(program_of(text, {f32("x"), f32("a"), Param{"b", DType::Int64, true, false}}), go);
  std::vector<ArrayView> views(3);
  views[0].shape = Shape{100, 64};
  views[0].device = Device::cuda(0);
  views[2].dtype = views[1].dtype = DType::Float32;
  const std::string recipe = reduction_recipe(g, views.data(), 90);
  CHECK(recipe == "[[kernel]]\nname = \"jitrun\"\nprogram = \"" + text +
                      "\"\ninputs = [\"x=float32\", \"a=float32\", \"b=int64:weak\"]\n"
                      "shapes = [{ x = [100, 64], a = \"scalar\" }]\narch = [\"sm_90\"]\n");
  // What a call compiles, in a group as run_reductions_on_gpu opens one.
  const std::vector<PassKernel> kernels = reduction_kernels(g, {Shape{100, 64}, Shape{}, Shape{}}, {false, true, true});
  REQUIRE(kernels.size() == 4);
  std::shared_ptr<const cache::Entry> first;
  {
    RecordGroup group([&] { return recipe; });
    for (const PassKernel& k : kernels) {
      CompileOptions co;
      co.arch = 90;
      auto e = k.program ? k.program->compile(k.layout, 90) : compile_through_cache(k.source, k.name, co);
      if (!first) first = e;
    }
  }
  CHECK(recipe_from_ptx(first->ptx) == recipe);  // `jitcache list` shows the program each pass belongs to
  PrecompileReport r = precompile_manifest(recipe, "recorded.toml");
  INFO((r.errors.empty() ? std::string() : r.errors[0]));
  CHECK(r.failed == 0);
  CHECK(r.compiled == 0);  // every kernel the call compiled, found again
  CHECK(r.cached == kernels.size());
}

TEST_CASE("precompile: reduction entries' errors", "[deploy][manifest]") {
  if (!manifest_supported()) CUJIT_SKIP("this build has no toml++ (libtomlplusplus-dev): manifests are not read");
  const std::string head = "[[kernel]]\nprogram = \"s = sum(x * y)\"\ninputs = [\"x=float32\", \"y=float32\"]\n";
  CHECK(precompile_error(head) ==
        "r.toml:2:11: kernel 'cujit_kernel': a program with reductions is compiled for the input shapes it will be "
        "called with (its kernels depend on them): add shapes = [{ x = [1000] }], one table per call's shapes");
  CHECK(precompile_error(head + "shapes = [{ x = [10] }]\n") ==
        "r.toml:4:11: kernel 'cujit_kernel': 'shapes': no shape for input 'y' (an array): add y = [1000] (its "
        "extents), or y = \"scalar\" for a 0-d value passed from the host");
  CHECK(precompile_error(head + "shapes = [{ x = [10], y = [3] }]\n") ==
        "r.toml:4:11: kernel 'cujit_kernel': 'shapes': {x=(10,), y=(3,)}: error: operands of shapes (10,) and (3,) do "
        "not broadcast\n  s = sum(x * y)\n          ^~~~~\nhint: NumPy broadcasting: trailing dimensions must be equal "
        "or 1");
  CHECK(precompile_error(head + "shapes = [{ x = [10], y = [10] }]\nlayouts = [\"strided\"]\n") ==
        "r.toml:5:11: kernel 'cujit_kernel': 'layouts': a program with reductions is planned from its shapes "
        "(contiguous arrays of those shapes), not from layouts; leave layouts, index and ndim out");
  CHECK(precompile_error("[[kernel]]\nprogram = \"out = x * 2\"\ninputs = [\"x=float32\"]\nshapes = [{ x = [10] }]\n") ==
        "r.toml:4:10: kernel 'cujit_kernel': 'shapes': the program has no reductions: its kernels are planned from "
        "layouts (contiguous, strided, broadcast), not shapes; leave shapes out");
  CHECK(precompile_error("[[kernel]]\nprogram = \"s = sum(x * a)\"\ninputs = [\"x=float32\", \"a=float64:weak\"]\n"
                         "shapes = [{ x = [10], a = [1] }]\n") ==
        "r.toml:4:11: kernel 'cujit_kernel': 'shapes': 'a' is passed as a scalar (a weak one), so it takes no shape; "
        "leave it out");
  const std::string ek = "[[kernel]]\nname = \"k\"\nin_params = \"T x, T a\"\nout_params = \"T m\"\n"
                         "operation = \"m = max(x*a, axis=0)\"\ntypes = { T = [\"float32\"] }\n";
  CHECK(precompile_error(ek + "shapes = [{ x = [10, 3], z = [3] }]\n") ==
        "r.toml:7:11: kernel 'k': 'shapes': 'z' is not an input of the kernel");
  CHECK(precompile_error(ek + "shapes = [{ x = [10, 3], a = \"scalar\" }]\n") ==
        "r.toml:7:11: kernel 'k': 'shapes': 'a' is \"scalar\", but the kernel is given it as an array; declare its kind "
        "in scalars (e.g. scalars = { a = \"float32\" }) or give its shape");
  auto parse_error = [](const std::string& text) {
    try {
      parse_manifest(text, "m.toml");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::Data);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(parse_error(head + "shapes = \"x\"\n") ==
        "m.toml:4:10: kernel #1: 'shapes': expected an array of tables such as [{ x = [1000, 4] }], got a string");
  CHECK(parse_error(head + "shapes = []\n") ==
        "m.toml:4:10: kernel #1: 'shapes': give at least one table of input shapes, e.g. [{ x = [1000, 4] }]");
  CHECK(parse_error(head + "shapes = [{ x = [10, -1] }]\n") ==
        "m.toml:4:22: kernel #1: 'shapes.x': an extent is a whole number from 0, e.g. [1000, 4]");
  CHECK(parse_error(head + "shapes = [{ x = 10 }]\n") ==
        "m.toml:4:17: kernel #1: 'shapes.x': expected the input's shape, e.g. [1000, 4] ([] for 0-d), or \"scalar\" for "
        "a 0-d value passed from the host, got an integer");
  CHECK(parse_error(head + "shapes = [{ x = [4294967296, 4294967296] }]\n") ==
        "m.toml:4:17: kernel #1: 'shapes.x': the shape has more elements than fit in 64 bits");
  CHECK(parse_error(head + "shapes = [{ x = [1, 1, 1, 1, 1, 1, 1, 1, 1] }]\n") ==
        "m.toml:4:17: kernel #1: 'shapes.x': 9 dimensions; cujit's arrays have at most 8");
  CHECK(parse_error(head + "shapes = [{ z = [10] }]\n") ==
        "m.toml:4:10: kernel #1: 'shapes': 'z' is not an input of the program (its inputs: x, y)");
}

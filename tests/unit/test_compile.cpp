// NVRTC works without a GPU, so these compile for real in CI.
#include <algorithm>
#include <string>

#include "catch.hpp"
#include "gpu/compile.hpp"
#include "cujit/error.hpp"
#include "core/driver.hpp"
#include "gpu/launch.hpp"

using namespace cujit;

namespace {

const char* kTiny =
    "extern \"C\" __global__ void k(float* y, const float* x, int n)"
    "{int i=blockIdx.x*blockDim.x+threadIdx.x; if(i<n) y[i]=sinf(x[i])*5.0f;}";

bool contains(const std::string& s, const std::string& part) {
  return s.find(part) != std::string::npos;
}

bool supported(int arch) {
  auto a = nvrtc_supported_archs();
  return std::find(a.begin(), a.end(), arch) != a.end();
}

CompileError compile_error(const std::string& source, const CompileOptions& opt) {
  try {
    compile_cuda(source, "bad", opt);
  } catch (const CompileError& e) {
    return e;
  }
  FAIL("compile_cuda did not throw a CompileError");
  return CompileError(ErrorCode::Internal, "", {});
}

}  // namespace

TEST_CASE("NVRTC reports its version and the archs it supports") {
  CHECK(nvrtc_version() >= 11020);
  auto a = nvrtc_supported_archs();
  REQUIRE_FALSE(a.empty());
  CHECK(std::is_sorted(a.begin(), a.end()));
}

TEST_CASE("the tiny kernel compiles to a cubin and PTX for each supported arch") {
  int compiled = 0;
  for (int arch : {70, 75, 80, 86, 90, 100, 120}) {
    if (!supported(arch)) continue;
    CAPTURE(arch);
    CompileOptions opt;
    opt.arch = arch;
    CompiledKernel k = compile_cuda(kTiny, "tiny", opt);
    CHECK(k.arch == arch);
    CHECK(k.target == "sm_" + std::to_string(arch));
    REQUIRE(k.cubin.size() > 4);
    CHECK(k.cubin.compare(0, 4, "\x7f" "ELF") == 0);
    CHECK(contains(k.ptx, ".entry k("));
    CHECK(contains(k.ptx, ".target sm_" + std::to_string(arch)));
    CHECK(k.ptx.back() != '\0');
    CHECK(k.compile_ms > 0);
    CHECK(k.options == options_string(opt));
    ++compiled;
  }
  CHECK(compiled >= 2);
}

TEST_CASE("cap_arch takes the highest supported arch at most the one wanted") {
  auto a = nvrtc_supported_archs();
  CHECK(cap_arch(1000) == a.back());
  CHECK(cap_arch(a.front()) == a.front());
  for (int arch : a) CHECK(cap_arch(arch) == arch);
  if (supported(90) && !supported(91)) CHECK(cap_arch(91) == 90);

  // An arch capped down still compiles: a newer GPU gets the newest cubin plus PTX.
  CompileOptions opt;
  opt.arch = 1000;
  CompiledKernel k = compile_cuda(kTiny, "tiny", opt);
  CHECK(k.arch == a.back());
  CHECK(contains(options_string(opt), "--gpu-architecture=sm_" + std::to_string(a.back())));

  try {
    cap_arch(a.front() - 1);
    FAIL("no throw");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Device);
    CHECK(contains(e.what(), "cannot compile for sm_" + std::to_string(a.front() - 1) +
                                 ": it supports sm_" + std::to_string(a.front()) + " to sm_" +
                                 std::to_string(a.back())));
  }
}

TEST_CASE("the options string is canonical and fast math appears only on request") {
  CompileOptions opt;
  opt.arch = cap_arch(90);
  std::string arch = std::to_string(opt.arch);
  std::string plain = options_string(opt);
  CHECK(plain.rfind("-std=c++17 --gpu-architecture=sm_" + arch + " -default-device", 0) == 0);
  CHECK_FALSE(contains(plain, "fast_math"));
  CHECK_FALSE(contains(plain, "-I"));
  CHECK(plain == options_string(opt));

  opt.fast_math = true;
  std::string fast = options_string(opt);
  CHECK(contains(fast, " --use_fast_math"));
  CompiledKernel k = compile_cuda(kTiny, "tiny", opt);
  CHECK(k.options == fast);

  opt.extra = {"-DCUJIT_X=1"};
  CHECK(options_string(opt) == fast + " -DCUJIT_X=1");
}

TEST_CASE("fast math changes the code: sinf becomes the hardware approximation") {
  CompileOptions opt;
  opt.arch = cap_arch(90);
  CompiledKernel precise = compile_cuda(kTiny, "tiny", opt);
  opt.fast_math = true;
  CompiledKernel fast = compile_cuda(kTiny, "tiny", opt);
  CHECK(contains(fast.ptx, "sin.approx"));
  CHECK_FALSE(contains(precise.ptx, "sin.approx"));
}

TEST_CASE("a compile error is Internal and carries the log, the options and numbered source") {
  CompileOptions opt;
  opt.arch = cap_arch(80);
  std::string src =
      "extern \"C\" __global__ void k(float* y) {\n"
      "  y[0] = 1.0f\n"
      "}\n";
  CompileError e = compile_error(src, opt);
  CHECK(e.code() == ErrorCode::Internal);
  std::string m = e.what();
  CAPTURE(m);
  CHECK(m.rfind("internal error: the generated CUDA source of 'bad' failed to compile "
                "(NVRTC_ERROR_COMPILATION)\n",
                0) == 0);
  CHECK(contains(m, "options: " + options_string(opt) + "\n"));
  CHECK(contains(m, "NVRTC log:\nbad.cu(3): error: expected a \";\""));
  CHECK(contains(m, "\nsource:\n1 | extern \"C\" __global__ void k(float* y) {\n"
                    "2 |   y[0] = 1.0f\n"
                    "3 | }\n"));
  // The same parts, each on its own, for an application to show or log.
  CHECK(e.stage() == "compile");
  CHECK(e.options() == options_string(opt));
  CHECK(e.log().rfind("bad.cu(3): error: expected a \";\"", 0) == 0);
  CHECK(e.source() == "1 | extern \"C\" __global__ void k(float* y) {\n"
                      "2 |   y[0] = 1.0f\n"
                      "3 | }\n");
  CHECK(contains(m, "options: " + e.options() + "\n"));
  CHECK(contains(m, "NVRTC log:\n" + e.log() + "\n"));
}

TEST_CASE("a compile error in the caller's own CUDA code is a Program error that says so") {
  CompileOptions opt;
  opt.arch = cap_arch(80);
  opt.user_code = true;
  CompileError e = compile_error("extern \"C\" __global__ void k(float* y) { y[0] = +* ; }\n", opt);
  CHECK(e.code() == ErrorCode::Program);
  std::string m = e.what();
  CHECK(m.rfind("your CUDA code failed to compile: kernel 'bad' (NVRTC_ERROR_COMPILATION)\nNVRTC ", 0) == 0);
  CHECK_FALSE(contains(m, "internal error"));
  CHECK(e.stage() == "compile");
  CHECK(contains(e.log(), "bad.cu(1): error: expected an expression"));
  CHECK(e.source() == "1 | extern \"C\" __global__ void k(float* y) { y[0] = +* ; }\n");
  // user_code does not change the compiled code: the cache key stays the same.
  CompileOptions plain = opt;
  plain.user_code = false;
  CHECK(options_string(opt) == options_string(plain));
}

TEST_CASE("numbered source pads line numbers to one width") {
  std::string src;
  for (int k = 0; k < 11; ++k) src += "int x" + std::to_string(k) + " = ;\n";
  CompileOptions opt;
  opt.arch = cap_arch(80);
  std::string m = compile_error(src, opt).what();
  CHECK(contains(m, "\n 1 | int x0 = ;\n"));
  CHECK(contains(m, "\n11 | int x10 = ;\n"));
  CHECK_FALSE(contains(m, "\n12 |"));
}

TEST_CASE("kernels including cuda_fp16.h and cuda_bf16.h compile with the toolkit headers") {
  REQUIRE_FALSE(cuda_include_dirs().empty());
  CompileOptions opt;
  opt.arch = cap_arch(80);
  CompiledKernel k = compile_cuda(
      "#include <cuda_fp16.h>\n"
      "#include <cuda_bf16.h>\n"
      "extern \"C\" __global__ void h(__half* y, __nv_bfloat16* z, int n) {\n"
      "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n"
      "  if (i < n) { y[i] = __float2half(__half2float(y[i]) * 2.0f); z[i] = z[i] * z[i]; }\n"
      "}\n",
      "half", opt);
  CHECK(contains(k.ptx, ".entry h("));
  // The include folder locates headers; it is no part of the cache key.
  CHECK_FALSE(contains(k.options, "-I"));
}

TEST_CASE("a header found nowhere is a Device error naming it and where cujit looked") {
  CompileOptions opt;
  opt.arch = cap_arch(80);
  // Found missing before NVRTC runs: a plain Error, there is no log.
  Error e(ErrorCode::Internal, "");
  try {
    compile_cuda("#include <cujit_no_such_header.h>\n", "bad", opt);
  } catch (const Error& x) {
    e = x;
  }
  CHECK(e.code() == ErrorCode::Device);
  CHECK(contains(e.what(), "CUDA headers missing: the kernel 'bad' includes "
                           "<cujit_no_such_header.h>, which is in none of: " +
                               cuda_include_dirs().front()));
}

TEST_CASE("select_image takes the cubin where it runs and PTX on newer GPUs") {
  CHECK(cubin_runs_on(80, 80));
  CHECK(cubin_runs_on(80, 86));
  CHECK_FALSE(cubin_runs_on(86, 80));
  CHECK_FALSE(cubin_runs_on(90, 100));
  CHECK_FALSE(cubin_runs_on(90, 80));

  CompiledKernel k;
  k.arch = 90;
  k.target = "sm_90";
  k.cubin = "\x7f" "ELF cubin";
  k.ptx = "ptx";
  CHECK(&select_image(k, 90) == &k.cubin);
  CHECK(&select_image(k, 100) == &k.ptx);
  CHECK(&select_image(k, 120) == &k.ptx);
  try {
    select_image(k, 80);
    FAIL("no throw");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Device);
    CHECK(std::string(e.what()) ==
          "a kernel compiled for sm_90 cannot run on an sm_80 GPU: compile it for that GPU's "
          "architecture");
  }
}

TEST_CASE("prewarm_nvrtc reads NVRTC ahead once and compiles work after it", "[compile]") {
  cujit::prewarm_nvrtc();
  cujit::prewarm_nvrtc();  // once per process: the second call does nothing
  cujit::CompileOptions o;
  o.arch = 90;
  cujit::CompiledKernel k = cujit::compile_cuda("extern \"C\" __global__ void k(float* p) { p[0] = 1; }\n", "k", o);
  REQUIRE(k.cubin.compare(0, 4, "\x7f" "ELF") == 0);
}

TEST_CASE("a cache entry's image is picked in place: no copy of the cubin or PTX per load") {
  cache::Entry e;
  e.target = "sm_90";
  e.cubin = "\x7f" "ELF cubin";
  e.ptx = "ptx";
  CHECK(&select_image(entry_images(e, 90), 90) == &e.cubin);
  CHECK(&select_image(entry_images(e, 90), 120) == &e.ptx);
  CHECK_THROWS_AS(select_image(entry_images(e, 90), 80), Error);
}

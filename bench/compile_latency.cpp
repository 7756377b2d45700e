// Cold compile latency: program text -> cubin (parse, check, codegen, NVRTC),
// with no cache involved. Prints a table of medians; needs no GPU.
//   bench_compile_latency [runs]
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <string>
#include <sys/utsname.h>
#include <unistd.h>
#include <vector>

#include "lang/check.hpp"
#include "gpu/codegen.hpp"
#include "gpu/compile.hpp"

using namespace cujit;
using clock_type = std::chrono::steady_clock;

namespace {

struct Case {
  const char* label;
  const char* program;
  std::vector<Param> inputs;
};

double ms(clock_type::duration d) { return std::chrono::duration<double, std::milli>(d).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

std::string cpu_name() {
  FILE* f = std::fopen("/proc/cpuinfo", "r");
  if (!f) return "unknown CPU";
  char line[512];
  std::string name = "unknown CPU";
  while (std::fgets(line, sizeof line, f)) {
    std::string s(line);
    if (s.rfind("model name", 0) == 0) {
      name = s.substr(s.find(':') + 2);
      name.pop_back();
      break;
    }
  }
  std::fclose(f);
  return name;
}

}  // namespace

int main(int argc, char** argv) {
  int runs = argc > 1 ? std::atoi(argv[1]) : 15;
  const DType f32 = DType::Float32;
  const std::vector<Case> cases = {
      {"sin float32", "out = sin(x)*5", {{"x", f32}}},
      {"saxpy-like float32", "z = x*y + 5", {{"x", f32}, {"y", f32}}},
      {"where/sqrt float64", "out = where(x > 0, sqrt(x), -x**2)", {{"x", DType::Float64}}},
      {"Black-Scholes float32",
       "sq = sqrt(t)\n"
       "d1 = (log(s / k) + (r + 0.5f * v * v) * t) / (v * sq)\n"
       "d2 = d1 - v * sq\n"
       "call = s * 0.5f * erfc(-d1 * 0.70710678f) - k * exp(-r * t) * 0.5f * erfc(-d2 * 0.70710678f)\n"
       "put = call - s + k * exp(-r * t)",
       // r and v are weak scalars: literal-like float64 values.
       {{"s", f32}, {"k", f32}, {"t", f32}, {"r", DType::Float64, true}, {"v", DType::Float64, true}}},
      {"float16 fma-like", "out = x * y + z", {{"x", DType::Float16}, {"y", DType::Float16}, {"z", DType::Float16}}},
  };

  CompileOptions co;
  co.arch = cap_arch(90);
  std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  fmt::print("cujit cold compile latency (program text -> cubin, no cache), {} runs each, median\n", runs);
  fmt::print("machine: {} ({} cores), NVRTC {}, target sm_{}, {}\n\n", cpu_name(), sysconf(_SC_NPROCESSORS_ONLN),
             nvrtc_version(), co.arch, date);
  fmt::print("| program | front end ms | codegen ms | NVRTC ms | total ms | cubin bytes |\n");
  fmt::print("|---|---:|---:|---:|---:|---:|\n");
  // NVRTC's floor on this machine: an empty kernel, after its one-time start-up.
  const std::string empty = "extern \"C\" __global__ void empty() {}";
  compile_cuda(empty, "empty", co);
  std::vector<double> floor_ms;
  for (int r = 0; r < runs; ++r) {
    auto t0 = clock_type::now();
    compile_cuda(empty, "empty", co);
    floor_ms.push_back(ms(clock_type::now() - t0));
  }
  fmt::print("| (NVRTC floor: an empty kernel) | - | - | {:.1f} | {:.1f} | - |\n", median(floor_ms), median(floor_ms));
  for (const Case& c : cases) {
    std::vector<double> fe, cg, nv, total;
    std::size_t cubin = 0;
    for (int r = 0; r < runs; ++r) {
      auto t0 = clock_type::now();
      Program p = compile_program(c.program, c.inputs);
      auto t1 = clock_type::now();
      std::string src = generate_source(p, contiguous_layout(p, max_vec(p)), "bench_kernel");
      auto t2 = clock_type::now();
      CompiledKernel k = compile_cuda(src, "bench_kernel", co);
      auto t3 = clock_type::now();
      cubin = k.cubin.size();
      fe.push_back(ms(t1 - t0));
      cg.push_back(ms(t2 - t1));
      nv.push_back(ms(t3 - t2));
      total.push_back(ms(t3 - t0));
    }
    fmt::print("| {} | {:.3f} | {:.3f} | {:.1f} | {:.1f} | {} |\n", c.label, median(fe), median(cg), median(nv),
               median(total), cubin);
  }
  return 0;
}

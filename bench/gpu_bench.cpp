// GPU throughput and host cost, measured in one run on one GPU:
//  1. For N = 2^20, 2^24, 2^28 float32 and two programs: the median kernel time
//     (device events around each call, 25 calls after a warm-up), GB/s (bytes
//     read + written), and the ratio to a device-to-device copy moving the same
//     number of bytes, timed alongside. Each program runs with the layout the
//     launcher picks (16-byte vectors) and with vectorization off (max_vector 1),
//     to show what the vector variant buys.
//  2. The host cost of one cached call (ElementwiseKernel::operator(), and the
//     internal GpuProgram::launch) against a raw cuLaunchKernel of the same
//     generated kernel: CPU time to enqueue a batch of 100 calls, per call,
//     median over 40 batches (the queue never fills, so only host work is timed).
//   bench_gpu [max_log2_n]
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <memory>
#include <random>
#include <vector>

#include "lang/check.hpp"
#include "gpu/codegen.hpp"
#include "gpu/compile.hpp"
#include "cujit/elementwise.hpp"
#include "core/driver.hpp"
#include "gpu/launch.hpp"

using namespace cujit;
using clock_type = std::chrono::steady_clock;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

Array random_device_array(std::int64_t n, std::uint32_t seed) {
  Array h = Array::empty(DType::Float32, Shape{n}, Device::cpu());
  std::mt19937 rng(seed);
  std::uniform_real_distribution<float> u(-4.0f, 4.0f);
  for (std::int64_t k = 0; k < n; ++k) h.as<float>()[k] = u(rng);
  return h.to_device(0);
}

struct Prog {
  const char* label;
  const char* in_params;
  const char* operation;
  std::vector<Param> params;
};

// Host microseconds per call to enqueue `batch` calls, median over `batches`.
template <class F> double host_us_per_call(F&& call, int batches = 40, int batch = 100) {
  std::vector<double> per;
  for (int b = 0; b < batches; ++b) {
    synchronize(0);
    auto t0 = clock_type::now();
    for (int k = 0; k < batch; ++k) call();
    auto t1 = clock_type::now();
    per.push_back(std::chrono::duration<double, std::micro>(t1 - t0).count() / batch);
  }
  synchronize(0);
  return median(per);
}

}  // namespace

int main(int argc, char** argv) {
  if (!gpu_available()) {
    std::printf("bench_gpu: no CUDA device (%s)\n", gpu_unavailable_reason().c_str());
    return 77;
  }
  int max_log2 = argc > 1 ? std::atoi(argv[1]) : 28;
  const DeviceInfo& dev = device_info(0);
  std::time_t now = std::time(nullptr);
  char date[32];
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  fmt::print("cujit GPU benchmark: {} (sm_{}, {} SMs), CUDA driver {}, NVRTC {}, {}\n\n", dev.name, dev.arch(),
             dev.sm_count, driver_version(), nvrtc_version(), date);

  const DType f32 = DType::Float32;
  const std::vector<Prog> progs = {{"z = x*y + 5", "float32 x, float32 y", "z = x*y + 5", {{"x", f32}, {"y", f32}}},
                                   {"out = sin(x)*5", "float32 x", "z = sin(x)*5", {{"x", f32}}}};
  fmt::print("## Throughput (float32, median of 25 calls; copy = cuMemcpyDtoD moving the same bytes)\n\n");
  fmt::print("| program | N | layout | kernel ms | GB/s | copy GB/s | kernel/copy |\n");
  fmt::print("|---|---:|---|---:|---:|---:|---:|\n");
  Event e0(0), e1(0);
  for (const Prog& pr : progs) {
    auto program = std::make_shared<Program>(compile_program(pr.operation, pr.params, {{"z", f32}}, Outputs::Exact));
    GpuOptions vec_off;
    vec_off.max_vector = 1;
    GpuProgram gv(program), gs(program, vec_off);
    for (int lg : {20, 24, 28}) {
      if (lg > max_log2) continue;
      std::int64_t n = std::int64_t{1} << lg;
      Array x = random_device_array(n, 1), y = random_device_array(n, 2);
      Array z = Array::empty(f32, Shape{n}, Device::cuda(0));
      std::vector<ArrayView> in = {x.view()};
      if (pr.params.size() == 2) in.push_back(y.view());
      std::vector<ArrayView> out = {z.view()};
      std::size_t bytes = static_cast<std::size_t>(n) * 4 * (pr.params.size() + 1);
      DeviceBuffer src(0, bytes / 2), dst(0, bytes / 2);
      for (const GpuProgram* g : {&gv, &gs}) {
        LaunchStats st;
        g->launch(0, in, out, nullptr, &st);
        synchronize(0);
        std::vector<double> tk, tc;
        for (int rep = 0; rep < 25; ++rep) {
          e0.record();
          g->launch(0, in.data(), out.data());
          e1.record();
          e1.synchronize();
          tk.push_back(e1.elapsed_ms_since(e0));
          e0.record();
          memcpy_dtod(0, dst.ptr(), src.ptr(), bytes / 2, nullptr);
          e1.record();
          e1.synchronize();
          tc.push_back(e1.elapsed_ms_since(e0));
        }
        double mk = median(tk), mc = median(tc);
        double gk = static_cast<double>(bytes) / (mk * 1e6), gc = static_cast<double>(bytes) / (mc * 1e6);
        fmt::print("| {} | 2^{} | {} | {:.4f} | {:.0f} | {:.0f} | {:.3f} |\n", pr.label, lg, st.layout, mk, gk, gc, gk / gc);
      }
    }
  }

  fmt::print("\n## Host cost of one cached call (N = 2^12, CPU time to enqueue, median of 40 batches of 100)\n\n");
  fmt::print("| program | raw cuLaunchKernel us | GpuProgram::launch us | ElementwiseKernel call us | call / raw |\n");
  fmt::print("|---|---:|---:|---:|---:|\n");
  for (const Prog& pr : progs) {
    const std::int64_t n = 1 << 12;
    Array x = random_device_array(n, 3), y = random_device_array(n, 4);
    Array z = Array::empty(f32, Shape{n}, Device::cuda(0));
    ElementwiseKernel k(pr.in_params, "float32 z", pr.operation, "bench");
    auto program = std::make_shared<Program>(compile_program(pr.operation, pr.params, {{"z", f32}}, Outputs::Exact));
    GpuProgram g(program);
    std::vector<ArrayView> in = {x.view()};
    if (pr.params.size() == 2) in.push_back(y.view());
    std::vector<ArrayView> out = {z.view()};
    LaunchStats st;
    g.launch(0, in, out, nullptr, &st);  // compiles; st.layout names the kernel the API runs

    // The raw launch runs the same generated kernel for the same layout.
    std::vector<OperandView> ins, outs;
    for (const ArrayView& v : in) ins.push_back(OperandView{reinterpret_cast<std::uintptr_t>(v.data), f32, v.shape, v.strides, false});
    outs.push_back(OperandView{reinterpret_cast<std::uintptr_t>(z.data()), f32, z.shape(), z.view().strides, false});
    LaunchPlan plan = plan_launch(*program, ins, outs, GpuOptions{}.max_vector);
    CompileOptions co;
    co.arch = cap_arch(dev.arch());
    CompiledKernel ck = compile_cuda(g.source(plan.layout), "cujit_kernel", co);
    CUfunction f = get_function(0, "bench-raw-" + plan.layout.key_string() + pr.label, select_image(ck, dev.arch()),
                                "cujit_kernel");
    int min_grid = 0;
    int block = max_potential_block_size(0, f, &min_grid);
    unsigned grid = static_cast<unsigned>(std::min<std::int64_t>((n + block - 1) / block, min_grid));
    CUdeviceptr pz = reinterpret_cast<CUdeviceptr>(z.data()), px = reinterpret_cast<CUdeviceptr>(x.data()),
                py = reinterpret_cast<CUdeviceptr>(y.data());
    long long count = n;
    std::vector<void*> params = {&pz, &px};
    if (pr.params.size() == 2) params.push_back(&py);
    params.push_back(&count);
    ScopedContext ctx(0);
    double raw = host_us_per_call([&] {
      CU_CALL(cuLaunchKernel, f, grid, 1, 1, static_cast<unsigned>(block), 1, 1, 0, nullptr, params.data(), nullptr);
    });
    double internal = host_us_per_call([&] { g.launch(0, in.data(), out.data()); });
    double api = host_us_per_call([&] {
      if (pr.params.size() == 2) k(x, y, z);
      else k(x, z);
    });
    fmt::print("| {} | {:.2f} | {:.2f} | {:.2f} | {:.2f} |\n", pr.label, raw, internal, api, api / raw);
  }
  return 0;
}

// One elementwise job on one GPU against the same job split over several
// (cujit::evaluate_split), inputs resident: each device holds its rows of x
// and y before the clock starts (made there by the generators, no host copy).
//
//   bench_multi_gpu OUT_DIR [--log2n 30] [--runs 10] [--devices all|0,1|0,0]
//
// For 2^log2n float32 elements and `out = x*y + 5`, `out = sin(x)*5`:
//  - kernels: every slice launched on its device's stream, then all waited
//    for; the host's wall time from the first launch to the last wait, and
//    the slowest device's event time. Outputs preallocated.
//  - evaluate_split, new outputs: the whole API call (outputs allocated,
//    slices launched on pooled streams, waited for), wall time.
//  - evaluate_split, caller-owned outputs: the whole evaluate_split_into
//    call into outputs made once before the clock (split_empty), wall time.
// Medians over the runs after a warm-up; GB/s = bytes read + written / time.
// Writes OUT_DIR/multi_gpu.md (a markdown table) and prints it.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "plan/split_plan.hpp"
#include "cujit/multi_gpu.hpp"
#include "core/driver.hpp"
#include "gpu/generate.hpp"
#include "gpu/launch.hpp"
#include "lang/check.hpp"

using namespace cujit;
using clock_type = std::chrono::steady_clock;

namespace {

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

double ms_since(clock_type::time_point t0) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

// x cut over `devices` as evaluate_split cuts it, each piece filled on its device.
SplitArray resident(std::int64_t n, const std::vector<int>& devices, std::uint64_t seed) {
  SplitArray s;
  s.dtype = DType::Float32;
  s.shape = Shape{n};
  for (const SplitSlice& sl : plan_split(s.shape, {}, devices)) {
    Array a = Array::empty(DType::Float32, sl.shape, Device::cuda(sl.device));
    GeneratorSpec g;
    g.kind = GeneratorSpec::Rand;
    g.seed = seed + static_cast<std::uint64_t>(sl.begin);
    generate_device(g, a.view());
    s.pieces.push_back(ArrayPiece{sl.device, sl.begin, sl.end, a});
  }
  return s;
}

struct Result {
  double kernel_wall_ms, kernel_event_ms, api_ms, into_ms;
};

Result measure(const char* program, int inputs, std::int64_t n, const std::vector<int>& devices, int runs) {
  SplitArray x = resident(n, devices, 1), y = resident(n, devices, 1u << 20);
  std::vector<Param> params = {Param{"x", DType::Float32, false, false}};
  if (inputs == 2) params.push_back(Param{"y", DType::Float32, false, false});
  GpuProgram g(std::make_shared<Program>(compile_program(program, params)));
  // Kernels alone: a stream, events and a preallocated output per slice.
  struct Slice {
    int device;
    std::unique_ptr<Stream> stream;
    std::unique_ptr<Event> start, stop;
    std::vector<ArrayView> in;
    Array out;
  };
  std::vector<Slice> slices;
  for (std::size_t k = 0; k < x.pieces.size(); ++k) {
    Slice s;
    s.device = x.pieces[k].device;
    s.stream = std::make_unique<Stream>(s.device);
    s.start = std::make_unique<Event>(s.device);
    s.stop = std::make_unique<Event>(s.device);
    s.in.push_back(x.pieces[k].array.view());
    if (inputs == 2) s.in.push_back(y.pieces[k].array.view());
    s.out = Array::empty(DType::Float32, x.pieces[k].array.shape(), Device::cuda(s.device));
    slices.push_back(std::move(s));
  }
  std::vector<SplitArray> owned = {split_empty(DType::Float32, Shape{n}, devices)};
  std::vector<double> wall, event, api, into;
  for (int r = 0; r <= runs; ++r) {  // run 0 warms up (compile, module loads)
    auto t0 = clock_type::now();
    for (Slice& s : slices) {
      s.start->record(s.stream->get());
      std::vector<ArrayView> out = {s.out.view()};
      g.launch(s.device, s.in, out, s.stream->get());
      s.stop->record(s.stream->get());
    }
    double slowest = 0;
    for (Slice& s : slices) {
      s.stop->synchronize();
      slowest = std::max(slowest, static_cast<double>(s.stop->elapsed_ms_since(*s.start)));
    }
    const double w = ms_since(t0);
    std::vector<SplitInput> dist = {{"x", x}};
    if (inputs == 2) dist.push_back({"y", y});
    t0 = clock_type::now();
    std::vector<SplitArray> outs = evaluate_split(program, {}, dist, devices);
    const double a = ms_since(t0);
    outs.clear();  // freed now: the next call runs with the memory in use it would have alone
    t0 = clock_type::now();
    evaluate_split_into(program, {}, dist, owned);
    const double o = ms_since(t0);
    if (r == 0) continue;
    wall.push_back(w);
    event.push_back(slowest);
    api.push_back(a);
    into.push_back(o);
  }
  return {median(wall), median(event), median(api), median(into)};
}

std::vector<int> parse_devices(const std::string& s) {
  if (s == "all") return all_devices();
  std::vector<int> d;
  std::size_t b = 0;
  while (b <= s.size()) {
    std::size_t e = s.find(',', b);
    d.push_back(std::stoi(s.substr(b, e == std::string::npos ? std::string::npos : e - b)));
    if (e == std::string::npos) break;
    b = e + 1;
  }
  return d;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: bench_multi_gpu OUT_DIR [--log2n 30] [--runs 10] [--devices all|0,1|0,0]\n");
    return 1;
  }
  const std::string dir = argv[1];
  int log2n = 30, runs = 10;
  std::string devices_text = "all";
  for (int k = 2; k + 1 < argc; k += 2) {
    const std::string flag = argv[k];
    if (flag == "--log2n") log2n = std::stoi(argv[k + 1]);
    else if (flag == "--runs") runs = std::stoi(argv[k + 1]);
    else if (flag == "--devices") devices_text = argv[k + 1];
    else {
      std::fprintf(stderr, "bench_multi_gpu: unknown option %s\n", flag.c_str());
      return 1;
    }
  }
  try {
    const std::int64_t n = std::int64_t{1} << log2n;
    const std::vector<int> many = parse_devices(devices_text);
    const std::vector<int> one = {many[0]};
    struct Case {
      const char* program;
      int inputs;
    };
    const Case cases[] = {{"out = x*y + 5", 2}, {"out = sin(x)*5", 1}};
    std::string dev_list;
    for (int d : many) dev_list += (dev_list.empty() ? "" : ",") + std::to_string(d);
    char date[32];
    const std::time_t now = std::time(nullptr);
    std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
    std::string md = fmt::format(
        "# One job on 1 GPU against {} slices (devices {})\n\n{} ({} device(s) on the host), {}; 2^{} float32 "
        "elements, inputs resident on their slices' devices; medians of {} runs after a warm-up "
        "(bench/multi_gpu.cpp). GB/s = bytes read + written / time on devices {}; speed-up = time on GPU {} / "
        "time on devices {}.\n\n"
        "| program | timed | GPU {} ms | devices {} ms | GB/s | speed-up |\n|---|---|---:|---:|---:|---:|\n",
        many.size(), dev_list, device_info(many[0]).name, device_count(), date, log2n, runs, dev_list, one[0], dev_list,
        one[0], dev_list);
    for (const Case& c : cases) {
      const double bytes = static_cast<double>(n) * 4.0 * (c.inputs + 1);
      Result r1 = measure(c.program, c.inputs, n, one, runs);
      Result rn = measure(c.program, c.inputs, n, many, runs);
      const std::pair<const char*, double Result::*> rows[] = {
          {"kernels, host wall", &Result::kernel_wall_ms},
          {"kernels, slowest device (events)", &Result::kernel_event_ms},
          {"evaluate_split, new outputs", &Result::api_ms},
          {"evaluate_split, caller-owned outputs", &Result::into_ms}};
      for (const auto& [label, field] : rows)
        md += fmt::format("| `{}` | {} | {:.3f} | {:.3f} | {:.0f} | {:.2f} |\n", c.program, label, r1.*field, rn.*field,
                          bytes / (rn.*field * 1e-3) / 1e9, r1.*field / rn.*field);
    }
    std::filesystem::create_directories(dir);
    std::ofstream(dir + "/multi_gpu.md") << md;
    std::fputs(md.c_str(), stdout);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "bench_multi_gpu: %s\n", e.what());
    return 1;
  }
  return 0;
}

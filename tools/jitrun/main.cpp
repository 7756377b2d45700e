// jitrun: evaluate a cujit program from the command line.
//   jitrun -i 'x=rand(1000000)' 'out = sin(x)*5'
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <complex>
#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <unistd.h>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/pipeline.hpp"
#include "api/reduce_call.hpp"
#include "cache/record.hpp"
#include "plan/shapes.hpp"
#include "cache/kernel_cache.hpp"
#include "cpu/thread_pool.hpp"
#include "plan/reduce_plan.hpp"
#include "cpu/vector_math.hpp"
#include "cujit/error.hpp"
#include "cujit/npy.hpp"
#include "cujit/pool.hpp"
#include "core/fail.hpp"
#include "gpu/compile.hpp"
#include "core/driver.hpp"
#include "gpu/launch.hpp"
#include "io/format.hpp"
#include "io/npy.hpp"
#include "lang/check.hpp"
#include "core/names.hpp"
#include "progress.hpp"
#include "core/scalar.hpp"
#include "sources.hpp"
#include "split.hpp"
#include "summary.hpp"
#include "../tool_common.hpp"

using namespace cujit;

namespace {

struct Options {
  std::string program, program_file;
  std::vector<std::string> inputs, outputs, types;
  bool print = false, verbose = false, bench = false;
  std::string emit, arch;
  int bench_runs = 20;
  std::string device = "auto";
  std::string shape;
  std::uint64_t seed = 0;
};

std::pair<std::string, std::string> split_eq(const std::string& s, const char* flag) {
  std::size_t eq = s.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
    fail(ErrorCode::Usage, "{} expects NAME=VALUE, got '{}'", flag, quoted_text(s));
  // Every name is checked before anything is read or written for it.
  check_name(s.substr(0, eq), std::string(flag).substr(0, 2));
  return {s.substr(0, eq), s.substr(eq + 1)};
}

// A -i value as an argument: a weak scalar (an unsuffixed literal) is a
// Python-like number, anything else the array (a 0-d one is a typed scalar).
Arg as_arg(const jitrun::Source& s) {
  if (!s.weak) return Arg(s.view());  // a host array, or a generator's on the GPU
  switch (s.array.dtype()) {
    case DType::Int64: return Arg(*s.array.as<std::int64_t>());
    case DType::Float64: return Arg(*s.array.as<double>());
    case DType::Complex128: return Arg(*s.array.as<std::complex<double>>());
    default: fail(ErrorCode::Internal, "weak input of dtype {}", dtype_name(s.array.dtype()));
  }
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

// Where to run: -1 for the CPU, else a CUDA ordinal.
int choose_device(const std::string& d) {
  if (d == "cpu") return -1;
  if (d == "all") return device_info(0).ordinal;  // split over every GPU (split.hpp); each makes or reads its own rows (sources.hpp)
  if (d == "auto") {
    if (gpu_available()) return 0;
    std::fprintf(stderr, "jitrun: no usable GPU (%s); running on the CPU\n", gpu_unavailable_reason().c_str());
    return -1;
  }
  std::size_t used = 0;
  int k = -1;
  try {
    k = std::stoi(d, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != d.size() || k < 0) fail(ErrorCode::Usage, "--device must be auto, cpu, all or a CUDA device number, got '{}'", d);
  device_info(k);  // a Device error (exit code 4) when there is no such GPU
  return k;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  std::size_t m = v.size() / 2;
  return v.size() % 2 ? v[m] : (v[m - 1] + v[m]) / 2;
}

// --bench: the kernel's median time from device events over `runs` launches
// after the warm-up launch, against a device-to-device copy of the same number
// of bytes (read + written) timed the same way in the same run.
void bench(const GpuProgram& g, int device, const std::vector<ArrayView>& in, const std::vector<ArrayView>& out, int runs) {
  std::uint64_t bytes = 0;
  for (const ArrayView& v : in)
    if (v.device.kind == Device::CUDA) bytes += static_cast<std::uint64_t>(v.size()) * v.itemsize();
  for (const ArrayView& v : out) bytes += static_cast<std::uint64_t>(v.size()) * v.itemsize();
  // Both are queued on one stream between two events, with no host wait in
  // between, so the events time the GPU's work alone.
  Stream s(device);
  Event start(device), stop(device);
  std::vector<double> kernel_ms, copy_ms;
  for (int r = 0; r < runs; ++r) {
    start.record(s.get());
    run_again(g, device, in, out, s.get());
    stop.record(s.get());
    stop.synchronize();
    kernel_ms.push_back(stop.elapsed_ms_since(start));
  }
  // The copy reads half the bytes and writes the other half.
  const std::size_t half = static_cast<std::size_t>(bytes / 2);
  DeviceBuffer src(device, half), dst(device, half);
  src.fill_bytes(0x5a);
  memcpy_dtod(device, dst.ptr(), src.ptr(), half, s.get());  // warm-up
  for (int r = 0; r < runs; ++r) {
    start.record(s.get());
    memcpy_dtod(device, dst.ptr(), src.ptr(), half, s.get());
    stop.record(s.get());
    stop.synchronize();
    copy_ms.push_back(stop.elapsed_ms_since(start));
  }
  const double k = median(kernel_ms), c = median(copy_ms);
  auto gbs = [&](double ms) { return ms > 0 ? static_cast<double>(bytes) / (ms * 1e-3) / 1e9 : 0.0; };
  std::printf("bench: %d runs on device %d (%s); %.1f MB read+written\n", runs, device, device_info(device).name.c_str(),
              static_cast<double>(bytes) / 1e6);
  std::printf("bench: kernel median %.4f ms (min %.4f, max %.4f)  %.1f GB/s\n", k,
              *std::min_element(kernel_ms.begin(), kernel_ms.end()), *std::max_element(kernel_ms.begin(), kernel_ms.end()),
              gbs(k));
  std::printf("bench: device-to-device copy of the same bytes: median %.4f ms  %.1f GB/s\n", c, gbs(c));
  std::printf("bench: kernel / copy bandwidth: %.2f\n", c > 0 && k > 0 ? c / k : 0.0);
}

void print_cache_counters() {
  cache::Counters c = cache::global_cache().counters();
  std::fprintf(stderr,
               "jitrun: kernel cache %s: %llu memory hits, %llu disk hits, %llu compiles (%.1f ms), "
               "disk read %.3f ms, disk write %.3f ms\n",
               cache::global_cache().config().enabled ? cache::global_cache().config().dir.c_str() : "(memory only)",
               static_cast<unsigned long long>(c.memory_hits), static_cast<unsigned long long>(c.disk_hits),
               static_cast<unsigned long long>(c.compiles), static_cast<double>(c.compile_ns) / 1e6,
               static_cast<double>(c.disk_read_ns) / 1e6, static_cast<double>(c.disk_write_ns) / 1e6);
}

// The device's memory pool after the run (cujit/pool.hpp): what it holds, and
// its peak, which is the run's device memory.
void print_pool(int device) {
  const PoolStats p = pool_stats(device);
  if (!p.active) {
    std::fprintf(stderr, "jitrun: memory pool off on device %d: direct allocations (CUJIT_POOL=0, or no pool support)\n", device);
    return;
  }
  std::fprintf(stderr, "jitrun: memory pool on device %d: %llu bytes reserved, %llu in use; peak %llu reserved, %llu in use\n",
               device, static_cast<unsigned long long>(p.reserved_bytes), static_cast<unsigned long long>(p.used_bytes),
               static_cast<unsigned long long>(p.reserved_high_bytes), static_cast<unsigned long long>(p.used_high_bytes));
}

int emit_reductions(const Options& opt, const std::shared_ptr<const Program>& program, const std::vector<Input>& inputs,
                    const Shape* shape);

// --emit: the kernel a GPU run of these inputs would use, as source, PTX or
// cubin. The layout is planned as for arrays in fresh device memory (aligned,
// C-contiguous); no GPU is needed.
int emit(const Options& opt, const std::shared_ptr<const Program>& program, const std::vector<Input>& inputs, const Shape* shape) {
  using clock = std::chrono::steady_clock;
  if (opt.emit != "source" && opt.emit != "ptx" && opt.emit != "cubin")
    fail(ErrorCode::Usage, "--emit must be source, ptx or cubin, got '{}'", opt.emit);
  if (program->has_reductions) return emit_reductions(opt, program, inputs, shape);
  std::vector<OperandView> ins, outs;
  std::uintptr_t fake = 1u << 20;  // 256-byte aligned stand-ins for device addresses
  for (const Input& in : inputs) {
    OperandView v;
    v.dtype = in.view.dtype;
    v.shape = in.view.shape;
    v.strides = ArrayView::contiguous_strides(in.view.shape, in.view.dtype);
    v.host_value = in.weak || (in.view.shape.ndim == 0 && !in.raw);
    v.address = fake;
    fake += (static_cast<std::uintptr_t>(in.view.size()) * dtype_size(in.view.dtype) + 511) & ~std::uintptr_t{255};
    ins.push_back(v);
  }
  std::vector<ArrayView> views;
  for (const Input& in : inputs) views.push_back(in.view);
  Shape out_shape = shape ? *shape : broadcast_shape(*program, views.data());
  for (const Var& v : program->outputs) {
    if (v.input >= 0) {  // an input updated in place is its own output
      outs.push_back(ins[static_cast<std::size_t>(v.input)]);
      continue;
    }
    OperandView o;
    o.dtype = v.dtype;
    o.shape = out_shape;
    o.strides = ArrayView::contiguous_strides(out_shape, v.dtype);
    o.address = fake;
    fake += (static_cast<std::uintptr_t>(out_shape.size()) * dtype_size(v.dtype) + 511) & ~std::uintptr_t{255};
    outs.push_back(o);
  }
  // The launcher's own planning and cache path: what is emitted (and, for
  // PTX and cubin, compiled into the kernel cache and recorded with
  // CUJIT_RECORD) is the kernel a GPU run would look up.
  GpuOptions go;
  go.kernel_name = "jitrun";
  GpuProgram g(program, go);
  auto t0 = clock::now();
  KernelLayout layout = g.plan(ins, outs);
  double t_codegen = ms_since(t0);
  if (opt.emit == "source") {
    std::string source = g.source(layout);
    t_codegen = ms_since(t0);
    std::fputs(source.c_str(), stdout);
  } else {
    const int arch = cap_arch(!opt.arch.empty() ? parse_arch(opt.arch) : gpu_available() ? device_info(0).arch() : 90);
    if (opt.emit == "cubin" && (opt.outputs.size() != 1 || opt.outputs[0].find('=') != std::string::npos))
      fail(ErrorCode::Usage, "--emit cubin writes a file: give its path with -o PATH");
    auto t1 = clock::now();
    bool compiled = false;
    auto k = g.compile(layout, arch, &compiled);
    if (opt.verbose)
      std::fprintf(stderr, "jitrun: %s %.1f ms for %s\n", compiled ? "NVRTC" : "kernel cache", ms_since(t1), k->target.c_str());
    if (opt.emit == "ptx") {
      std::fputs(k->ptx.c_str(), stdout);
    } else {
      const bool to_stdout = opt.outputs[0] == "-";
      if (to_stdout && ::isatty(STDOUT_FILENO) == 1)
        fail(ErrorCode::Usage, "--emit cubin -o -: standard output is a terminal; redirect it to a file or a pipe");
      if (to_stdout) {
        if (std::fwrite(k->cubin.data(), 1, k->cubin.size(), stdout) != k->cubin.size() || std::fflush(stdout) != 0)
          fail(ErrorCode::Data, "standard output: cannot write the cubin: {}", std::strerror(errno));
      } else {
        write_file(opt.outputs[0], std::string_view(reinterpret_cast<const char*>(k->cubin.data()), k->cubin.size()));
      }
      std::fprintf(stderr, "jitrun: wrote %zu bytes of %s cubin to %s\n", k->cubin.size(), k->target.c_str(),
                   to_stdout ? "standard output" : opt.outputs[0].c_str());
    }
  }
  if (opt.verbose)
    std::fprintf(stderr, "jitrun: layout %s; plan+codegen %.3f ms\n", layout.key_string().c_str(), t_codegen);
  return 0;
}

// `path` with `.k` before its extension: k.cubin -> k.2.cubin (one file per kernel).
std::string numbered(const std::string& path, std::size_t k) {
  const std::size_t slash = path.rfind('/');
  std::size_t dot = path.rfind('.');
  if (dot == std::string::npos || (slash != std::string::npos && dot < slash) || dot == slash + 1) dot = path.size();
  return path.substr(0, dot) + "." + std::to_string(k) + path.substr(dot);
}

// The plan's passes, one line each, as -v prints them (plan::describe), and
// the head of --emit's output: each pass with the kernels that run it, or why
// it has none.
std::vector<std::string> pass_lines(const Program& p, const std::vector<Shape>& shapes) {
  std::vector<std::string> passes;
  const std::string d = plan::describe(p, plan::plan_reductions(p, shapes));
  for (std::size_t at = 0; at < d.size();) {
    const std::size_t nl = d.find('\n', at);
    passes.push_back(d.substr(at, nl - at));
    at = nl == std::string::npos ? d.size() : nl + 1;
  }
  return passes;
}

std::string emit_head(const Program& p, const std::vector<std::string>& passes, const std::vector<PassKernel>& all,
                      const std::vector<const PassKernel*>& kernels) {
  std::string head = fmt::format("// cujit: `{}` runs {} kernel{} on a GPU, in this order (jitrun -v prints the plan):\n",
                                 p.ast.source, kernels.size(), kernels.size() == 1 ? "" : "s");
  for (std::size_t n = 1; n <= passes.size(); ++n) {
    const int pass = static_cast<int>(n);
    std::string ks, why;
    for (std::size_t k = 0; k < kernels.size(); ++k)
      if (kernels[k]->pass == pass || kernels[k]->pass == 0) ks += (ks.empty() ? "" : ", ") + std::to_string(k + 1);
    for (const PassKernel& pk : all)
      if (!pk.note.empty() && pk.pass == pass) why = pk.note;
    if (ks.empty() && why.empty()) why = "no kernel of its own: the reduction it reads writes its output";
    head += "//   " + passes[n - 1] + "  [" + (ks.empty() ? "" : "kernel " + ks + (why.empty() ? "" : "; ")) + why + "]\n";
  }
  return head;
}

// One kernel compiled for sm_<arch> through the kernel cache, as a run compiles it.
std::shared_ptr<const cache::Entry> compile_pass_kernel(const PassKernel& pk, int arch, bool verbose, std::size_t number) {
  auto t0 = std::chrono::steady_clock::now();
  bool compiled = false;
  std::shared_ptr<const cache::Entry> e;
  if (pk.program) {
    e = pk.program->compile(pk.layout, arch, &compiled);
  } else {
    CompileOptions co;
    co.arch = arch;
    e = compile_through_cache(pk.source, pk.name, co, &compiled);
  }
  if (verbose)
    std::fprintf(stderr, "jitrun: kernel %zu: %s %.1f ms for %s\n", number, compiled ? "NVRTC" : "kernel cache",
                 ms_since(t0), e->target.c_str());
  return e;
}

void write_cubin(const cache::Entry& e, const std::string& path) {
  if (path != "-") {
    write_file(path, std::string_view(reinterpret_cast<const char*>(e.cubin.data()), e.cubin.size()));
    return;
  }
  if (::isatty(STDOUT_FILENO) == 1)
    fail(ErrorCode::Usage, "--emit cubin -o -: standard output is a terminal; redirect it to a file or a pipe");
  if (std::fwrite(e.cubin.data(), 1, e.cubin.size(), stdout) != e.cubin.size() || std::fflush(stdout) != 0)
    fail(ErrorCode::Data, "standard output: cannot write the cubin: {}", std::strerror(errno));
}

// --emit for a program with reductions: every kernel its plan runs on a GPU
// (api/reduce_call.hpp's reduction_kernels, the planning code of the run
// itself, for arrays in fresh device memory), in the order they run, each
// headed by a comment naming its pass as `jitrun -v` numbers them
// (plan::describe), what it reads and writes. A cubin is one file per kernel.
int emit_reductions(const Options& opt, const std::shared_ptr<const Program>& program, const std::vector<Input>& inputs,
                    const Shape* shape) {
  std::vector<Shape> shapes;
  std::vector<bool> host_value;
  std::vector<ArrayView> views;  // as a call passes them: for the recorded entry
  for (const Input& in : inputs) {
    shapes.push_back(in.view.shape);
    host_value.push_back(in.weak || (in.view.shape.ndim == 0 && !in.raw));
    views.push_back(in.view);
    if (!host_value.back()) views.back().device = Device::cuda(0);
  }
  GpuOptions go;
  go.kernel_name = "jitrun";
  GpuProgram g(program, go);
  auto t0 = std::chrono::steady_clock::now();
  const std::vector<PassKernel> all = reduction_kernels(g, shapes, host_value, shape);
  const double t_plan = ms_since(t0);
  std::vector<const PassKernel*> kernels;
  for (const PassKernel& k : all)
    if (k.note.empty()) kernels.push_back(&k);
  const int arch = cap_arch(!opt.arch.empty() ? parse_arch(opt.arch) : gpu_available() ? device_info(0).arch() : 90);
  if (opt.emit == "cubin") {
    if (opt.outputs.size() != 1 || opt.outputs[0].find('=') != std::string::npos)
      fail(ErrorCode::Usage, "--emit cubin writes a file: give its path with -o PATH");
    if (opt.outputs[0] == "-" && kernels.size() != 1)
      fail(ErrorCode::Usage,
           "--emit cubin -o -: this program runs {} kernels (jitrun -v shows its passes), and standard output takes "
           "one; give -o PATH for one file per kernel (PATH with .1, .2, ... before its extension), or use --emit ptx",
           kernels.size());
  }
  const std::vector<std::string> passes = pass_lines(*program, shapes);
  auto pass_text = [&](int pass) {
    return pass == 0 ? "passes 1-" + std::to_string(passes.size()) + " in one kernel (rows normalised in one pass)"
                     : passes[static_cast<std::size_t>(pass - 1)];
  };
  if (opt.emit != "cubin") std::fputs(emit_head(*program, passes, all, kernels).c_str(), stdout);
  // A compile of every kernel records the program's whole entry (CUJIT_RECORD).
  RecordGroup group([&] { return reduction_recipe(g, views.data(), arch); });
  for (std::size_t k = 0; k < kernels.size(); ++k) {
    const PassKernel& pk = *kernels[k];
    const std::string kind =
        pk.program ? pk.role + ", layout " + pk.layout.key_string() : pk.role + ", " + pk.name + " (" + pk.what + ")";
    const std::string header = fmt::format("\n// ---- kernel {} of {}: {}\n// {}\n// reads {}; writes {}\n", k + 1,
                                           kernels.size(), pass_text(pk.pass), kind, pk.reads, pk.writes);
    if (opt.emit == "source") {
      std::fputs(header.c_str(), stdout);
      std::fputs((pk.program ? pk.program->source(pk.layout) : pk.source).c_str(), stdout);
      continue;
    }
    const std::shared_ptr<const cache::Entry> e = compile_pass_kernel(pk, arch, opt.verbose, k + 1);
    if (opt.emit == "ptx") {
      std::fputs(header.c_str(), stdout);
      std::fputs(e->ptx.c_str(), stdout);
      continue;
    }
    const std::string path = kernels.size() == 1 ? opt.outputs[0] : numbered(opt.outputs[0], k + 1);
    write_cubin(*e, path);
    std::fprintf(stderr, "jitrun: wrote %zu bytes of %s cubin to %s (kernel %zu of %zu: %s)\n", e->cubin.size(),
                 e->target.c_str(), path == "-" ? "standard output" : path.c_str(), k + 1, kernels.size(),
                 pass_text(pk.pass).c_str());
  }
  if (opt.verbose)
    std::fprintf(stderr, "jitrun: %zu kernel%s; plan+codegen %.3f ms\n", kernels.size(), kernels.size() == 1 ? "" : "s",
                 t_plan);
  return 0;
}

// Whether two output paths are one file: the same text, or the same place
// once `.`, `..` and symbolic links are resolved (the file need not exist).
bool same_file(const std::string& a, const std::string& b) {
  if (a == b) return true;
  std::error_code ea, eb;
  auto ca = std::filesystem::weakly_canonical(std::filesystem::absolute(a), ea);
  auto cb = std::filesystem::weakly_canonical(std::filesystem::absolute(b), eb);
  return !ea && !eb && ca == cb;
}

// -v's timeline of a GPU run: milliseconds since the process started its
// run, at each phase, so a slow end to end run shows where its time goes.
const auto t_process = std::chrono::steady_clock::now();
void phase(bool verbose, const char* what) {
  if (verbose) std::fprintf(stderr, "jitrun: at %.1f ms: %s\n", ms_since(t_process), what);
}

int run(const Options& args) {
  // '-' is standard input (-f -, -i NAME=-) or output (-o NAME=-), once each.
  int stdin_users = args.program_file == "-" ? 1 : 0;
  for (const auto& spec : args.inputs) stdin_users += split_eq(spec, "-i/--input").second == "-";
  if (stdin_users > 1)
    fail(ErrorCode::Usage, "only one of -f and -i can read standard input ('-'); save the others to files");
  Options opt = args;
  if (!opt.program_file.empty()) {
    if (!opt.program.empty()) fail(ErrorCode::Usage, "give the program either as an argument or with -f FILE, not both");
    opt.program = jitrun::read_text_file(opt.program_file);
  } else if (opt.program.empty()) {
    fail(ErrorCode::Usage, "no program: give it as an argument, e.g. 'out = sin(x)*5', or with -f FILE");
  }
  std::map<std::string, std::string> paths;
  std::string to_stdout;  // the output written to standard output (-o NAME=-)
  for (const auto& o : opt.emit == "cubin" ? std::vector<std::string>{} : opt.outputs) {
    auto [name, path] = split_eq(o, "-o/--output");
    if (paths.count(name)) fail(ErrorCode::Usage, "-o {} is given twice; give each output one path", name);
    for (const auto& [other, p] : paths)
      if (path != "-" && p != "-" && same_file(p, path))
        fail(ErrorCode::Usage, "-o {}={} and -o {}={} name one file, so one output would overwrite the other; give each "
             "its own path", other, p, name, path);
    paths[name] = path;
    if (path != "-") continue;
    if (!to_stdout.empty())
      fail(ErrorCode::Usage, "-o {}=- and -o {}=-: only one output can go to standard output", to_stdout, name);
    to_stdout = name;
  }
  if (!to_stdout.empty()) {
    if (opt.print) fail(ErrorCode::Usage, "--print and -o {}=- both write to standard output; drop one", to_stdout);
    if (!opt.emit.empty()) fail(ErrorCode::Usage, "--emit writes the kernel to standard output; -o {}=- cannot", to_stdout);
    if (opt.bench) fail(ErrorCode::Usage, "--bench prints its timings on standard output; -o {}=- cannot share it", to_stdout);
    if (::isatty(STDOUT_FILENO) == 1)
      fail(ErrorCode::Usage, "-o {}=-: standard output is a terminal; redirect it to a file or a pipe", to_stdout);
  }

  // After the usage checks, so a usage error is not preceded by the notice
  // of a run on the CPU; before the inputs are read or made, so that NVRTC's
  // start-up overlaps that, the context creation and the inputs' upload
  // (kernels compile after all three).
  const int device = opt.emit.empty() ? choose_device(opt.device) : -1;
  if (device >= 0) phase(opt.verbose, "driver loaded, devices known");
  if (device >= 0 || !opt.emit.empty()) prewarm_nvrtc();
  // --device all: evaluate_split over every GPU (split.hpp) instead of the one-GPU pipeline.
  const bool split = opt.device == "all" && opt.emit.empty();
  std::optional<jitrun::ContextWarmup> warmup;
  if (split) warmup.emplace();
  if (opt.bench && device < 0) fail(ErrorCode::Usage, "--bench times the kernel on a GPU; it needs --device auto or N with a GPU");
  if (opt.bench_runs < 1) fail(ErrorCode::Usage, "--bench-runs must be at least 1");
  if (opt.bench && opt.device == "all") fail(ErrorCode::Usage, "--bench times the kernel on one GPU; give --device N");

  std::optional<Shape> job_shape;
  if (!opt.shape.empty()) job_shape = jitrun::parse_shape(opt.shape);
  // --device all: inputs made or read in rows on each GPU (sources.hpp).
  const std::vector<int> split_devices = split ? all_devices() : std::vector<int>{};
  std::vector<jitrun::Source> sources;
  std::vector<NamedArg> named;
  for (const auto& spec : opt.inputs) {
    auto [name, text] = split_eq(spec, "-i/--input");
    for (const NamedArg& a : named)
      if (a.name == name) fail(ErrorCode::Usage, "input '{}' is given twice", name);
    sources.push_back(jitrun::make_source(name, text, opt.seed + sources.size(), device, split_devices));
    named.push_back(NamedArg{name, Arg(0)});  // its value once every input is made
  }
  if (split) jitrun::unsplit_broadcast(sources, job_shape ? &*job_shape : nullptr);
  for (std::size_t k = 0; k < sources.size(); ++k) named[k].value = as_arg(sources[k]);

  if (device >= 0) phase(opt.verbose, "inputs made");
  EvaluateOptions eo;
  for (const auto& t : opt.types) {
    auto [name, dt] = split_eq(t, "-t/--type");
    auto d = dtype_from_numpy(dt);
    if (!d) fail(ErrorCode::Usage, "-t {}: {}", name, dtype_spelling_problem(dt));
    eo.output_dtypes.emplace_back(name, *d);
  }
  eo.device = device < 0 ? Device::cpu() : Device::cuda(device);
  eo.shape = job_shape;

  // The one pipeline evaluate() runs; the hooks add what a command line does.
  PipelineStats st;
  PipelineHooks hooks;
  hooks.kernel_name = "jitrun";
  // --device all: the split's own name, so it finds the program the pipeline checked.
  if (split) hooks.kernel_name = kDefaultKernelName;
  hooks.stats = &st;
  // Outputs stay where they were made: a summary line is reduced there
  // (summary.hpp), and only -o and --print bring an output to the host.
  jitrun::Progress progress;
  if (device < 0 && jitrun::Progress::wanted()) hooks.progress = [&](std::int64_t done, std::int64_t total) { progress(done, total); };
  std::shared_ptr<const Program> program;
  int emitted = -1;
  std::vector<SplitArray> split_outs;
  hooks.checked = [&](const std::shared_ptr<const Program>& p, const std::vector<Input>& inputs, const Shape* shape) {
    program = p;
    if (opt.verbose && p->has_reductions) {  // the passes over memory (src/plan/reduce_plan.hpp)
      std::vector<Shape> shapes;
      for (const Input& in : inputs) shapes.push_back(in.view.shape);
      std::fprintf(stderr, "%s", plan::describe(*p, plan::plan_reductions(*p, shapes)).c_str());
    }
    for (const auto& [name, path] : paths) {
      bool found = false;
      std::string all;
      for (const Var& v : p->outputs) found = found || v.name == name, all += (all.empty() ? "" : ", ") + v.name;
      if (!found) fail(ErrorCode::Usage, "-o {}: the program has no output '{}' (its outputs: {})", name, name, all);
    }
    // --device all: evaluate_split, the pipeline of several GPUs (which
    // refuses a program that updates an input in place).
    if (split) {
      phase(opt.verbose, "program checked");
      warmup->wait();
      if (opt.verbose)
        std::fprintf(stderr, "jitrun: the other GPUs' contexts took %.1f ms on their thread\n", warmup->ms());
      phase(opt.verbose, "other GPUs' contexts ready");
    }
    if (split) split_outs = jitrun::run_split(opt.program, inputs, sources, shape, eo.output_dtypes, opt.verbose);
    if (split || opt.emit.empty()) return !split;
    emitted = emit(opt, p, inputs, shape);
    return false;
  };
  if (opt.bench)
    hooks.launched = [&](const GpuProgram& g, int dev, const std::vector<ArrayView>& in, const std::vector<ArrayView>& out) {
      if (st.launch.n == 0) fail(ErrorCode::Usage, "--bench: the program has no elements to time");
      bench(g, dev, in, out, opt.bench_runs);
    };
  NamedArrays outs = run_pipeline(opt.program, named, eo, hooks);
  if (device >= 0) phase(opt.verbose, "program run");
  if (emitted >= 0) return emitted;
  if (opt.verbose && !split && device < 0) {
    std::fprintf(stderr, "jitrun: device cpu (%d threads, math: %s); parse+check %.3f ms; evaluate %.3f ms\n",
                 cpu_threads(), cpu::cpu_math().c_str(), st.check_ms, st.run_ms);
  } else if (opt.verbose && !split) {
    const DeviceInfo& info = device_info(device);
    const LaunchStats& ls = st.launch;
    // Rows and tiles layouts launch 2-D blocks on 2-D or 3-D grids.
    std::string grid = std::to_string(ls.grid);
    if (ls.grid_y != 1 || ls.grid_z != 1) grid += "x" + std::to_string(ls.grid_y) + "x" + std::to_string(ls.grid_z);
    grid += " x block " + std::to_string(ls.block);
    if (ls.block_y != 1) grid += "x" + std::to_string(ls.block_y);
    std::fprintf(stderr,
                 "jitrun: device %d (%s, sm_%d); layout %s; grid %s for %lld elements\n"
                 "jitrun: parse+check %.3f ms; plan %.3f ms; codegen %.3f ms; compile %.3f ms (%s); load %.3f ms; "
                 "launch %.3f ms; run (launch to sync) %.3f ms; upload %.3f ms; download %.3f ms\n",
                 device, info.name.c_str(), info.arch(), ls.layout.empty() ? "-" : ls.layout.c_str(), grid.c_str(),
                 static_cast<long long>(ls.n), st.check_ms, ls.plan_ms, ls.codegen_ms, ls.compile_ms,
                 ls.n == 0 ? "no launch: no elements" : ls.kernel == LaunchStats::Kernel::Compiled ? "compiled"
                                                      : ls.kernel == LaunchStats::Kernel::Disk     ? "disk cache hit"
                                                                                                   : "memory cache hit",
                 ls.load_ms, ls.launch_ms, st.run_ms, st.upload_ms, st.download_ms);
    print_cache_counters();
    print_pool(device);
  }

  // With a .npy on standard output, the other outputs' summaries go to stderr.
  FILE* text_out = to_stdout.empty() ? stdout : stderr;
  // The outputs in order of first assignment; an input updated in place is
  // one, its result in jitrun's own array of it (on the GPU for a generator's).
  struct Result {
    std::string name;
    Array array;
    const SplitArray* split = nullptr;  // --device all: the pieces on their GPUs
  };
  std::vector<Result> results;
  for (const SplitArray& s : split_outs) results.push_back(Result{s.name, Array(), &s});
  auto updated = [&](const jitrun::Source& s) { return s.device ? s.device : Array(s.array); };
  if (!split)
    for (const Var& v : program->outputs)
      results.push_back(Result{v.name, v.input >= 0 ? updated(sources[static_cast<std::size_t>(v.input)]) : outs[v.name]});
  for (const Result& r : results) {
    auto it = paths.find(r.name);
    const auto t0 = std::chrono::steady_clock::now();
    if (it == paths.end() && !opt.print) {
      const std::string line = r.split ? jitrun::summary(r.name, *r.split) : jitrun::summary(r.name, r.array);
      std::fprintf(text_out, "%s\n", line.c_str());
      if (opt.verbose) std::fprintf(stderr, "jitrun: summary of %s %.3f ms\n", r.name.c_str(), ms_since(t0));
      continue;
    }
    // To a file from GPU memory: each GPU's part comes down through pinned
    // buffers as it is written (io/npy.hpp), with no host copy of the whole.
    const bool on_gpu = r.split || r.array.device().kind != Device::CPU;
    if (it != paths.end() && it->second != "-" && !opt.print && on_gpu) {
      if (r.split) {
        const std::size_t row = r.split->shape.ndim == 0 ? 0 : dtype_size(r.split->dtype) * static_cast<std::size_t>(
                                    r.split->shape.size() / std::max<std::int64_t>(1, r.split->shape[0]));
        std::vector<DeviceBytes> runs;
        for (const ArrayPiece& p : r.split->pieces)
          runs.push_back(DeviceBytes{p.device, p.array.data(), p.array.nbytes(), static_cast<std::size_t>(p.begin) * row});
        write_npy_device(it->second, r.split->dtype, r.split->shape, runs);
      } else {
        save_npy(it->second, r.array.view());  // the same, or a strided view staged on the host
      }
      if (opt.verbose) std::fprintf(stderr, "jitrun: %s written from the GPU %.3f ms\n", r.name.c_str(), ms_since(t0));
      continue;
    }
    const Array a = r.split ? r.split->gather() : r.array.device().kind == Device::CPU ? r.array : r.array.to_host();
    if (opt.verbose && on_gpu) std::fprintf(stderr, "jitrun: %s to host %.3f ms\n", r.name.c_str(), ms_since(t0));
    if (it != paths.end() && it->second == "-") {
      std::fflush(stdout);
      write_npy(STDOUT_FILENO, a.view(), "standard output");
    } else if (it != paths.end()) {
      write_npy(it->second, a.view());
    }
    if (opt.print) std::fprintf(text_out, "%s = %s\n", r.name.c_str(), format_array(a.view()).c_str());
  }
  if (device >= 0) phase(opt.verbose, "outputs written (the rest is the process's exit)");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"jitrun: evaluate a cujit elementwise program.\n"
               "Example: jitrun -i 'x=rand(1000000)' 'out = sin(x)*5'\n"
               "Pipes: jitrun -i x=- -o out=- 'out = x * 2' < x.npy > out.npy"};
  app.set_version_flag("--version", tools::version_text("jitrun"));
  app.footer(tools::help_footer());
  Options opt;
  app.add_option("PROGRAM", opt.program, "the program, e.g. 'out = sin(x)*5' (or -f FILE)");
  app.add_option("-f,--file", opt.program_file, "read the program from FILE ('-': standard input)");
  app.add_option("-i,--input", opt.inputs,
                 "NAME=SOURCE: a .npy file (read straight into the GPU's memory when the program runs there; '-': "
                 "standard input; FILE.npy:DTYPE converts it as NumPy's astype with casting='same_kind'); a scalar (3.5, 2.0f, 7); or rand(N), randn(N), "
                 "arange(N), linspace(A,B,N), full(N,V), zeros(N), ones(N) with an optional :DTYPE (float32 by "
                 "default); N may be 1e6, 3x4 or (3, 4); made in the GPU's memory when the program runs there; rand and "
                 "randn are Philox4x32-10 streams of --seed, the same on the CPU and every GPU")
      ->allow_extra_args(false);
  app.add_option("-o,--output", opt.outputs,
                 "NAME=PATH: write that output to a .npy file ('-': standard output); with --emit cubin: PATH")
      ->allow_extra_args(false);
  app.add_option("-t,--type", opt.types,
                 "NAME=DTYPE: declare an output's dtype (NumPy's spellings: float32, f4, <f4, float = float64, i8, u1, ...)")->allow_extra_args(false);
  app.add_option("--emit", opt.emit,
                 "print the kernel's CUDA source or PTX, or write its cubin (-o PATH); no GPU needed. A program with "
                 "reductions: every kernel of its passes in the order a GPU runs them, each headed by the pass it "
                 "belongs to as -v prints them; its cubins go to one file per kernel, PATH with .1, .2, ... before "
                 "the extension (one kernel: PATH)")
      ->check(CLI::IsMember({"source", "ptx", "cubin"}));
  app.add_option("--arch", opt.arch, "--emit ptx|cubin target, e.g. sm_90 (default: GPU 0's, else sm_90)");
  app.add_flag("--print", opt.print, "print outputs the way NumPy prints arrays");
  app.add_option("--device", opt.device, "auto (GPU 0 when there is one, else the CPU), cpu, a CUDA device number, or all: the job split along "
                 "the inputs' first dimension over every GPU, reductions over it combined in device order (docs/runtime.md, \"Across GPUs\")");
  app.add_flag("--bench", opt.bench, "time the kernel: median of the runs after a warm-up, GB/s, and a device-to-device copy of the same bytes");
  app.add_option("--bench-runs", opt.bench_runs, "runs timed by --bench (default 20)");
  app.add_option("--shape", opt.shape, "shape of the outputs (e.g. 1000 or 3x4) when no array input gives it");
  app.add_option("--seed", opt.seed, "seed of the random generators (default 0: runs are reproducible)");
  app.add_flag("-v,--verbose", opt.verbose, "print phase timings");
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "jitrun: %s\nRun 'jitrun --help' for the options.\n", e.what());
    return static_cast<int>(ErrorCode::Usage);
  }
  try {
    return run(opt);
  } catch (const Error& e) {
    return tools::report("jitrun", e);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "jitrun: internal error: %s\n", e.what());
    return static_cast<int>(ErrorCode::Internal);
  }
}

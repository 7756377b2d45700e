#include "api/pipeline.hpp"

#include <chrono>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <unordered_map>

#include "fail.hpp"
#include "gpu/compile.hpp"
#include "gpu/driver.hpp"
#include "lang/check.hpp"
#include "lang/lex.hpp"
#include "names.hpp"

namespace cujit {

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

bool is_host_scalar(const ArrayView& v) { return v.device.kind == Device::CPU && v.shape.ndim == 0; }

// Programs by their text and signature: checked and compiled once.
struct ProgramCache {
  std::shared_mutex mu;
  std::unordered_map<std::string, std::shared_ptr<const GpuProgram>> programs;
};
ProgramCache& program_cache() {
  static ProgramCache* c = new ProgramCache;  // never destroyed: usable from static destructors
  return *c;
}
constexpr std::size_t kMaxPrograms = 4096;  // then the cache starts over

std::string program_key(std::string_view source, const std::vector<Param>& params, const std::vector<OutputDecl>& decls,
                        const EvaluateOptions& options, const std::string& kernel_name) {
  std::string key(source);
  key += '\0';
  for (const Param& q : params)
    key += q.name + ':' + std::to_string(static_cast<int>(q.dtype)) + (q.weak ? "w" : "") + (q.raw ? "r" : "") + ',';
  key += '\0';
  for (const OutputDecl& d : decls) key += d.name + ':' + std::to_string(d.dtype ? static_cast<int>(*d.dtype) : -1) + ',';
  key += '\0';
  key += kernel_name;
  if (options.fast_math) key += "\0fast";
  return key;
}

std::shared_ptr<const GpuProgram> cached_gpu_program(std::string_view source, const std::vector<Param>& params,
                                                     const std::vector<OutputDecl>& decls, const EvaluateOptions& options,
                                                     const std::string& kernel_name, double* check_ms) {
  const std::string key = program_key(source, params, decls, options, kernel_name);
  ProgramCache& cache = program_cache();
  {
    std::shared_lock<std::shared_mutex> lock(cache.mu);
    auto it = cache.programs.find(key);
    if (it != cache.programs.end()) return it->second;
  }
  auto t0 = Clock::now();
  auto p = std::make_shared<Program>(compile_program(source, params, decls));
  *check_ms = ms_since(t0);
  GpuOptions g;
  g.fast_math = options.fast_math;
  g.kernel_name = kernel_name;
  auto gpu = std::make_shared<GpuProgram>(std::move(p), g);
  std::unique_lock<std::shared_mutex> lock(cache.mu);
  if (cache.programs.size() >= kMaxPrograms) cache.programs.clear();
  auto& slot = cache.programs[key];
  if (!slot) slot = gpu;
  return slot;
}

}  // namespace

NamedArrays run_pipeline(std::string_view source, const std::vector<NamedArg>& inputs, const EvaluateOptions& options,
                         const PipelineHooks& hooks) {
  PipelineStats local_stats;
  PipelineStats& stats = hooks.stats ? *hooks.stats : local_stats;
  // Names first, before any array is copied for them.
  for (const NamedArg& a : inputs) check_name(a.name, "input");
  for (const auto& d : options.output_dtypes) check_name(d.first, "output");
  const std::set<std::string> raw = indexed_names(source);
  // Where: the option, else the device of the first device array, else the CPU.
  Device where = Device::cpu();
  if (options.device) {
    where = *options.device;
  } else {
    for (const NamedArg& a : inputs)
      if (a.value.is_array() && a.value.view().device.kind == Device::CUDA) {
        where = a.value.view().device;
        break;
      }
  }
  stats.where = where;
  if (where.kind == Device::CUDA) prewarm_nvrtc();  // overlaps the check and the copies below

  std::vector<Param> params;
  std::vector<Input> given;  // the inputs as the caller gave them
  for (const NamedArg& a : inputs) {
    Param q;
    q.name = a.name;
    q.weak = a.value.is_weak();
    q.raw = raw.count(a.name) > 0;
    q.dtype = a.value.view().dtype;
    params.push_back(q);
    given.push_back(Input{q.name, a.value.view(), q.weak, q.raw});
  }
  std::vector<OutputDecl> decls;
  for (const auto& [name, t] : options.output_dtypes) decls.push_back(OutputDecl{name, t});

  std::shared_ptr<const GpuProgram> gpu;
  std::shared_ptr<const Program> program;
  if (where.kind == Device::CUDA) {
    gpu = cached_gpu_program(source, params, decls, options, hooks.kernel_name, &stats.check_ms);
    program = std::shared_ptr<const Program>(gpu, &gpu->program());
  } else {
    auto t0 = Clock::now();
    program = std::make_shared<Program>(compile_program(source, params, decls));
    stats.check_ms = ms_since(t0);
  }
  const Program& p = *program;

  // The output shape when no array input gives one: the option, else the
  // first raw input's (so `out = x[n - 1 - i]` reverses x).
  std::optional<Shape> shape = options.shape;
  if (!shape) {
    std::vector<ArrayView> views;
    for (const Input& in : given) views.push_back(in.view);
    if (broadcast_shape(p, views.data()).ndim == 0)
      for (const Input& in : given)
        if (in.raw) {
          shape = in.view.shape;
          break;
        }
  }
  if (hooks.checked && !hooks.checked(program, given, shape ? &*shape : nullptr)) return {};

  NamedArrays result;
  if (where.kind == Device::CPU) {
    // Device arrays are copied to the host (kept alive in `copies`).
    std::vector<Input> in = given;
    std::vector<Array> copies;
    auto t0 = Clock::now();
    for (Input& v : in)
      if (v.view.device.kind != Device::CPU) {
        copies.push_back(Array::copy_of(v.view, Device::cpu()));
        v.view = copies.back().view();
      }
    stats.upload_ms = ms_since(t0);
    CpuOptions cpu;
    cpu.progress = hooks.progress;
    auto t1 = Clock::now();
    std::vector<Output> outs = evaluate_program(p, in, shape ? &*shape : nullptr, cpu);
    stats.run_ms = ms_since(t1);
    for (Output& o : outs) result.push_back(NamedArray{o.name, Array(std::move(o.array))});
    return result;
  }

  // Arrays on another device are copied to this one; scalars (weak or a host
  // 0-d array) are passed by value.
  std::vector<ArrayView> views;
  std::vector<Array> copies;
  auto t0 = Clock::now();
  for (const Input& a : given) {
    ArrayView v = a.view;
    if (a.raw && is_host_scalar(v)) fail(ErrorCode::Usage, "raw parameter '{}' needs an array, not a scalar", a.name);
    if (!a.weak && !is_host_scalar(v) && v.device != where) {
      copies.push_back(Array::copy_of(v, where));
      v = copies.back().view();
    }
    views.push_back(v);
  }
  stats.upload_ms = ms_since(t0);
  const Shape out_shape = output_shape(broadcast_shape(p, views.data()), shape ? &*shape : nullptr);
  std::vector<ArrayView> out_views;
  for (const Var& v : p.outputs) {
    result.push_back(NamedArray{v.name, Array::empty(v.dtype, out_shape, where)});
    out_views.push_back(result.back().array.view());
  }
  auto t1 = Clock::now();
  const auto stream = reinterpret_cast<CUstream>(options.stream);
  gpu->launch(where.id, views.data(), out_views.data(), stream, &stats.launch);
  if (hooks.stats || hooks.launched) {
    synchronize(where.id, stream);
    stats.run_ms = ms_since(t1);
  }
  if (hooks.launched) hooks.launched(*gpu, where.id, views, out_views);
  if (hooks.outputs_to_host) {
    auto t2 = Clock::now();
    for (NamedArray& o : result) o.array = o.array.to_host();
    stats.download_ms = ms_since(t2);
  }
  return result;
}

NamedArrays evaluate(std::string_view source, const std::vector<NamedArg>& inputs, const EvaluateOptions& options) {
  return run_pipeline(source, inputs, options, PipelineHooks{});
}

}  // namespace cujit

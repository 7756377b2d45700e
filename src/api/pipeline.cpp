#include "api/pipeline.hpp"

#include <chrono>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <unordered_map>

#include "api/array.hpp"
#include "fail.hpp"
#include "gpu/codegen.hpp"
#include "gpu/compile.hpp"
#include "gpu/driver.hpp"
#include "gpu/kernel_key.hpp"
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
  std::unordered_map<cache::Key, std::shared_ptr<const GpuProgram>, cache::KeyHash> programs;
};
ProgramCache& program_cache() {
  static ProgramCache* c = new ProgramCache;  // never destroyed: usable from static destructors
  return *c;
}
constexpr std::size_t kMaxPrograms = 4096;  // then the cache starts over

std::shared_ptr<const GpuProgram> cached_gpu_program(std::string_view source, const std::vector<Param>& params,
                                                     const std::vector<OutputDecl>& decls, const EvaluateOptions& options,
                                                     const std::string& kernel_name, double* check_ms) {
  const cache::Key key = program_key(source, params, decls, kernel_name, {}, false, options.fast_math);
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
  // A program with reductions has a shape per output (src/plan/reduce_plan.hpp).
  if (!shape && !p.has_reductions) {
    std::vector<ArrayView> views;
    for (const Input& in : given) views.push_back(in.view);
    if (broadcast_shape(p, views.data()).ndim == 0)
      for (const Input& in : given)
        if (in.raw) {
          shape = in.view.shape;
          break;
        }
  }
  // Inputs updated in place: refused before anything is copied or written
  // when they are broadcast or share memory with another input.
  std::vector<bool> inout(given.size(), false);
  bool any_inout = false;
  for (const Var& v : p.outputs)
    if (v.input >= 0) inout[static_cast<std::size_t>(v.input)] = any_inout = true;
  if (any_inout && !p.has_reductions) {  // with reductions: each pass checks its own
    std::vector<ArrayView> views, outs;
    for (const Input& in : given) views.push_back(in.view);
    ArrayView fresh;  // the other outputs are new arrays: nothing overlaps them
    fresh.shape = Shape{0};
    for (const Var& v : p.outputs) outs.push_back(v.input >= 0 ? views[static_cast<std::size_t>(v.input)] : fresh);
    const Shape s = output_shape(broadcast_shape(p, views.data()), shape ? &*shape : nullptr);
    check_inout(p, views.data(), s);
    check_overlap(p, views.data(), outs.data());
  }
  if (hooks.checked && !hooks.checked(program, given, shape ? &*shape : nullptr)) return {};

  NamedArrays result;
  for (const Var& v : p.outputs)
    if (v.input >= 0) result.updated.push_back(v.name);
  // Copies made to run where the arrays are not; an input updated in place
  // gets its copy's result back (back[k]).
  std::vector<Array> copies;
  std::vector<std::pair<std::size_t, ArrayView>> back;
  auto copy_back = [&] {
    auto t = Clock::now();
    for (const auto& [k, from] : back) copy_into(given[k].view, from);
    stats.download_ms += ms_since(t);
  };
  if (where.kind == Device::CPU) {
    std::vector<Input> in = given;
    auto t0 = Clock::now();
    for (std::size_t k = 0; k < in.size(); ++k)
      if (in[k].view.device.kind != Device::CPU) {
        copies.push_back(Array::copy_of(in[k].view, Device::cpu()));
        in[k].view = copies.back().view();
        if (inout[k]) back.emplace_back(k, in[k].view);
      }
    stats.upload_ms = ms_since(t0);
    CpuOptions cpu;
    cpu.progress = hooks.progress;
    auto t1 = Clock::now();
    std::vector<Output> outs = evaluate_program(p, in, shape ? &*shape : nullptr, cpu);
    stats.run_ms = ms_since(t1);
    for (Output& o : outs)
      if (!o.in_place) result.push_back(NamedArray{o.name, Array(std::move(o.array))});
    copy_back();
    return result;
  }

  // Arrays on another device are copied to this one; scalars (weak or a host
  // 0-d array) are passed by value, unless they are updated in place.
  std::vector<ArrayView> views;
  auto t0 = Clock::now();
  for (std::size_t k = 0; k < given.size(); ++k) {
    const Input& a = given[k];
    ArrayView v = a.view;
    if (a.raw && is_host_scalar(v)) fail(ErrorCode::Usage, "raw parameter '{}' needs an array, not a scalar", a.name);
    if (!a.weak && (!is_host_scalar(v) || inout[k]) && v.device != where) {
      copies.push_back(Array::copy_of(v, where));
      v = copies.back().view();
      if (inout[k]) back.emplace_back(k, v);
    }
    views.push_back(v);
  }
  stats.upload_ms = ms_since(t0);
  const Shape out_shape = output_shape(broadcast_shape(p, views.data()), shape ? &*shape : nullptr);
  // A program that can fail at run time leaves the inputs as they were: its
  // in/out results go to new arrays, copied in after the launch succeeded.
  const bool staged = any_inout && needs_error_slot(p);
  std::vector<ArrayView> out_views;
  std::vector<Array> staging;
  for (const Var& v : p.outputs) {
    if (v.input >= 0 && !staged) {
      out_views.push_back(views[static_cast<std::size_t>(v.input)]);
    } else if (v.input >= 0) {
      staging.push_back(Array::empty(v.dtype, out_shape, where));
      out_views.push_back(staging.back().view());
    } else {
      result.push_back(NamedArray{v.name, Array::empty(v.dtype, out_shape, where)});
      out_views.push_back(result.back().array.view());
    }
  }
  auto t1 = Clock::now();
  const auto stream = reinterpret_cast<CUstream>(options.stream);
  gpu->launch(where.id, views.data(), out_views.data(), stream, &stats.launch);
  if (hooks.stats || hooks.launched || !back.empty() || staged) {
    synchronize(where.id, stream);
    stats.run_ms = ms_since(t1);
  }
  if (hooks.launched) hooks.launched(*gpu, where.id, views, out_views);
  if (staged) {
    // Into the arrays the kernel would have updated (the caller's or their copies).
    std::size_t s = 0;
    for (const Var& v : p.outputs)
      if (v.input >= 0) copy_into(views[static_cast<std::size_t>(v.input)], staging[s++].view());
  }
  copy_back();
  if (hooks.outputs_to_host) {
    auto t2 = Clock::now();
    for (NamedArray& o : result) o.array = o.array.to_host();
    stats.download_ms += ms_since(t2);
  }
  return result;
}

NamedArrays evaluate(std::string_view source, const std::vector<NamedArg>& inputs, const EvaluateOptions& options) {
  return run_pipeline(source, inputs, options, PipelineHooks{});
}

}  // namespace cujit

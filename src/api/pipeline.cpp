#include "api/pipeline.hpp"

#include <chrono>

#include "api/programs.hpp"
#include "core/array.hpp"
#include "core/driver.hpp"
#include "core/fail.hpp"
#include "core/names.hpp"
#include "gpu/compile.hpp"

namespace cujit {

namespace {

// The last program this thread ran through the pipeline, with every field of
// the request run_pipeline builds (the rest of a ProgramRequest is fixed
// here): a call repeating it (one program in a loop, the common case) skips
// the names' checks, the program key's hashing and the cache's lock, a
// quarter of a small CPU call's cost. A checked program depends on its
// request alone; the memo holds it weakly, so a thread's exit never destroys a
// program (and its modules) that checked_program's cache let go.
struct LastProgram {
  std::string source, kernel_name;
  std::vector<Param> params;
  std::vector<std::pair<std::string, DType>> outputs;
  bool fast_math = false;
  std::weak_ptr<const GpuProgram> program;

  bool same(std::string_view src, const std::vector<NamedArg>& in, const EvaluateOptions& o,
            const std::string& kernel) const {
    if (src != source || kernel != kernel_name || o.fast_math != fast_math ||
        in.size() != params.size() || o.output_dtypes != outputs)
      return false;
    for (std::size_t k = 0; k < in.size(); ++k) {
      const Param& q = params[k];
      if (in[k].name != q.name || in[k].value.view().dtype != q.dtype || in[k].value.is_weak() != q.weak) return false;
    }
    return true;
  }
};
thread_local LastProgram last_program;

}  // namespace

NamedArrays run_pipeline(std::string_view source, const std::vector<NamedArg>& inputs, const EvaluateOptions& options,
                         const PipelineHooks& hooks) {
  PipelineStats local_stats;
  PipelineStats& stats = hooks.stats ? *hooks.stats : local_stats;
  std::shared_ptr<const GpuProgram> gpu;
  if (last_program.same(source, inputs, options, hooks.kernel_name)) gpu = last_program.program.lock();
  const bool again = gpu != nullptr;
  if (again) stats.check_ms = 0;  // as checked_program reports a cached program
  // Names first, before any array is copied for them (a repeated request's were checked).
  if (!again) {
    for (const NamedArg& a : inputs) check_name(a.name, "input");
    for (const auto& d : options.output_dtypes) check_name(d.first, "output");
  }
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

  if (!again) {
    ProgramRequest req;
    req.source = source;
    req.infer_raw = true;  // the inputs the program indexes are raw parameters
    req.params.reserve(inputs.size());
    for (const NamedArg& a : inputs) req.params.push_back(Param{a.name, a.value.view().dtype, a.value.is_weak(), false});
    for (const auto& [name, t] : options.output_dtypes) req.outputs.push_back(OutputDecl{name, t});
    req.gpu.fast_math = options.fast_math;
    req.gpu.kernel_name = hooks.kernel_name;
    gpu = checked_program(req, &stats.check_ms);
    last_program = LastProgram{std::string(source), hooks.kernel_name, std::move(req.params), options.output_dtypes,
                               options.fast_math, gpu};
  }
  const Program& p = gpu->program();

  Call call(*gpu);
  call.where = where;
  call.stream = reinterpret_cast<CUstream>(options.stream);
  for (std::size_t k = 0; k < inputs.size(); ++k) call.inputs[k] = inputs[k].value.view();
  // The output shape when no array input gives one: the option, else the
  // first raw input's (so `out = x[n - 1 - i]` reverses x).
  // A program with reductions has a shape per output (src/plan/reduce_plan.hpp).
  const std::optional<Shape> shape =
      p.has_reductions ? options.shape : implied_shape(p, call.inputs.data(), options.shape);
  call.shape = shape ? &*shape : nullptr;
  if (hooks.checked) {
    std::vector<Input> given;
    for (std::size_t k = 0; k < inputs.size(); ++k)
      given.push_back(Input{p.inputs[k].name, call.inputs[k], p.inputs[k].weak, p.inputs[k].raw});
    if (!hooks.checked(std::shared_ptr<const Program>(gpu, &p), given, call.shape)) return {};
  }

  CallHooks ch;
  ch.progress = hooks.progress;
  CallStats cs;
  if (hooks.stats) ch.stats = &cs;
  if (hooks.launched)
    ch.launched = [&](const ArrayView* in, const ArrayView* out) {
      stats.launch = cs.launch;  // what ran, for the hook (jitrun --bench)
      hooks.launched(*gpu, where.id, std::vector<ArrayView>(in, in + p.inputs.size()),
                     std::vector<ArrayView>(out, out + p.outputs.size()));
    };
  std::vector<Array> made = run_call(call, ch);
  stats.upload_ms = cs.upload_ms;
  stats.run_ms = cs.run_ms;
  stats.download_ms = cs.download_ms;
  stats.launch = cs.launch;

  NamedArrays result;
  for (std::size_t o = 0; o < p.outputs.size(); ++o) {
    if (p.outputs[o].input >= 0) {
      result.updated.push_back(p.outputs[o].name);
      continue;
    }
    result.push_back(NamedArray{p.outputs[o].name, std::move(made[o])});
  }
  return result;
}

NamedArrays evaluate(std::string_view source, const std::vector<NamedArg>& inputs, const EvaluateOptions& options) {
  return run_pipeline(source, inputs, options, PipelineHooks{});
}

void run_again(const GpuProgram& g, int device, const std::vector<ArrayView>& in, const std::vector<ArrayView>& out,
               CUstream stream) {
  if (!g.program().has_reductions) {
    g.launch(device, in.data(), out.data(), stream);
    return;
  }
  Call c(g);
  c.where = Device::cuda(device);
  c.stream = stream;
  c.move_inputs = false;
  for (std::size_t k = 0; k < in.size(); ++k) c.inputs[k] = in[k];
  for (std::size_t o = 0; o < out.size(); ++o) {
    c.outputs[o] = out[o];
    c.given[o] = g.program().outputs[o].input < 0;
  }
  run_call(c);
}

}  // namespace cujit

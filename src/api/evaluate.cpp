#include "cujit/evaluate.hpp"

#include <memory>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <unordered_map>

#include "lang/check.hpp"
#include "gpu/compile.hpp"
#include "cpu/eval.hpp"
#include "fail.hpp"
#include "gpu/kernel_key.hpp"
#include "gpu/launch.hpp"
#include "lang/lex.hpp"
#include "gpu/launch.hpp"
#include "lang/lex.hpp"
#include "names.hpp"

namespace cujit {

namespace {

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

}  // namespace

const Array& NamedArrays::operator[](std::string_view name) const {
  for (const NamedArray& a : *this)
    if (a.name == name) return a.array;
  std::string all;
  for (const NamedArray& a : *this) all += (all.empty() ? "'" : ", '") + a.name + "'";
  fail(ErrorCode::Usage, "the program has no output '{}' (its outputs: {})", name, all.empty() ? "none" : all);
}

Array& NamedArrays::operator[](std::string_view name) {
  return const_cast<Array&>(static_cast<const NamedArrays&>(*this)[name]);
}

bool NamedArrays::contains(std::string_view name) const {
  for (const NamedArray& a : *this)
    if (a.name == name) return true;
  return false;
}

NamedArrays evaluate(std::string_view source, const std::vector<NamedArg>& inputs,
                                 const EvaluateOptions& options) {
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

  if (where.kind == Device::CUDA) prewarm_nvrtc();  // overlaps the copies below
  // Parameters; arrays on the wrong side are copied (kept alive in `copies`).
  std::vector<Param> params;
  std::vector<ArrayView> views;
  std::vector<Array> copies;
  for (const NamedArg& a : inputs) {
    Param q;
    q.name = a.name;
    q.weak = a.value.is_weak();
    q.raw = raw.count(a.name) > 0;
    ArrayView v = a.value.view();
    q.dtype = v.dtype;
    if (a.value.is_array() && !is_host_scalar(v)) {
      if (where.kind == Device::CPU && v.device.kind != Device::CPU) {
        copies.push_back(Array::copy_of(v, Device::cpu()));
        v = copies.back().view();
      } else if (where.kind == Device::CUDA && v.device != where) {
        copies.push_back(Array::copy_of(v, where));
        v = copies.back().view();
      }
    }
    if (q.raw && where.kind == Device::CUDA && is_host_scalar(v))
      fail(ErrorCode::Usage, "raw parameter '{}' needs an array, not a scalar", q.name);
    params.push_back(q);
    views.push_back(v);
  }
  std::vector<OutputDecl> decls;
  for (const auto& [name, t] : options.output_dtypes) decls.push_back(OutputDecl{name, t});

  // The output shape when no array input gives one: the option, else the
  // first raw input's (so `out = x[n - 1 - i]` reverses x).
  auto shape_for = [&](const Program& p) -> std::optional<Shape> {
    if (options.shape) return options.shape;
    if (broadcast_shape(p, views.data()).ndim == 0)
      for (std::size_t k = 0; k < p.inputs.size(); ++k)
        if (p.inputs[k].raw) return views[k].shape;
    return std::nullopt;
  };

  NamedArrays result;
  if (where.kind == Device::CPU) {
    Program p = compile_program(source, params, decls);
    std::vector<Input> in;
    for (std::size_t k = 0; k < params.size(); ++k) in.push_back(Input{params[k].name, views[k], params[k].weak, params[k].raw});
    std::optional<Shape> shape = shape_for(p);
    std::vector<Output> outs = evaluate_program(p, in, shape ? &*shape : nullptr);
    for (Output& o : outs) result.push_back(NamedArray{o.name, Array(std::move(o.array))});
    return result;
  }

  const cache::Key key = program_key(source, params, decls, GpuOptions{}.kernel_name, {}, false, options.fast_math);

  ProgramCache& cache = program_cache();
  std::shared_ptr<const GpuProgram> gpu;
  {
    std::shared_lock<std::shared_mutex> lock(cache.mu);
    auto it = cache.programs.find(key);
    if (it != cache.programs.end()) gpu = it->second;
  }
  if (!gpu) {
    auto p = std::make_shared<Program>(compile_program(source, params, decls));
    GpuOptions g;
    g.fast_math = options.fast_math;
    gpu = std::make_shared<GpuProgram>(std::move(p), g);
    std::unique_lock<std::shared_mutex> lock(cache.mu);
    if (cache.programs.size() >= kMaxPrograms) cache.programs.clear();
    auto& slot = cache.programs[key];
    if (!slot) slot = gpu;
    gpu = slot;
  }
  const Program& p = gpu->program();
  std::optional<Shape> given = shape_for(p);
  Shape shape = output_shape(broadcast_shape(p, views.data()), given ? &*given : nullptr);
  std::vector<ArrayView> out_views;
  for (const Var& v : p.outputs) {
    result.push_back(NamedArray{v.name, Array::empty(v.dtype, shape, where)});
    out_views.push_back(result.back().array.view());
  }
  gpu->launch(where.id, views.data(), out_views.data(), reinterpret_cast<CUstream>(options.stream));
  return result;
}

}  // namespace cujit

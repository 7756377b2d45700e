#include "api/precompile.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <limits>
#include <map>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "lang/check.hpp"
#include "cujit/elementwise.hpp"
#include "core/driver.hpp"
#include "core/fail.hpp"
#include "gpu/launch.hpp"
#include "plan/shapes.hpp"
#include "api/manifest.hpp"
#include "api/reduce_call.hpp"
#include "cache/record.hpp"
#include "gpu/compile.hpp"

namespace cujit {

namespace {
// Whether input k is one the program updates in place (it keeps the full shape).
bool updated_in_place(const Program& p, std::size_t k) {
  for (const Var& v : p.outputs)
    if (v.input == static_cast<int>(k)) return true;
  return false;
}
}  // namespace
namespace {

constexpr std::uintptr_t kFakeBase = std::uintptr_t{1} << 36;  // 256-byte aligned stand-in addresses

std::string binding_text(const std::map<std::string, DType>& types) {
  std::string s;
  for (const auto& [ph, t] : types) s += (s.empty() ? "" : ",") + ph + "=" + std::string(dtype_name(t));
  return s.empty() ? s : "[" + s + "]";
}

// Every combination of the placeholders' dtypes.
std::vector<std::map<std::string, DType>> bindings(const std::vector<std::pair<std::string, std::vector<DType>>>& types) {
  std::vector<std::map<std::string, DType>> out(1);
  for (const auto& [ph, ts] : types) {
    std::vector<std::map<std::string, DType>> next;
    for (const auto& b : out)
      for (DType t : ts) {
        auto c = b;
        c[ph] = t;
        next.push_back(std::move(c));
      }
    out = std::move(next);
  }
  return out;
}

int error_code_of(const std::exception_ptr& e) {
  try {
    std::rethrow_exception(e);
  } catch (const Error& x) {
    return x.exit_code();
  } catch (...) {
    return static_cast<int>(ErrorCode::Internal);
  }
}

}  // namespace

KernelLayout layout_for(const GpuProgram& g, const std::vector<bool>& host_value, const std::string& kind, bool index64,
                        int ndim) {
  const Program& p = g.program();
  if (kind.find('|') != std::string::npos) {
    auto l = parse_layout_key(kind);
    if (!l) fail(ErrorCode::Data, "layout '{}' is not a layout as cujit writes them, e.g. \"c.i32.v4|o:c|i:c\"", kind);
    try {
      validate_layout(p, *l);
    } catch (const Error& e) {
      fail(ErrorCode::Data, "layout '{}' does not fit the program: {}", kind, e.what());
    }
    return *l;
  }
  // Shapes and strides of arrays that make the launcher choose `kind`.
  const std::int64_t big = std::int64_t{1} << 31;  // beyond 32-bit indexing
  Shape out_shape;
  if (kind == "contiguous") {
    out_shape.ndim = 1;
    out_shape[0] = index64 ? big + 256 : 4096;
  } else if (kind == "strided") {
    out_shape.ndim = ndim;
    for (int d = 0; d < ndim; ++d) out_shape[d] = 3;
    if (index64) out_shape[0] = big;
  } else if (kind == "broadcast") {
    out_shape.ndim = 2;
    out_shape[0] = index64 ? (std::int64_t{1} << 22) : 8;
    out_shape[1] = 1024;
  } else {
    fail(ErrorCode::Usage, "unknown layout '{}' (use contiguous, strided or broadcast)", kind);
  }
  // Strides of every other element in each dimension: nothing merges, nothing is contiguous.
  auto gapped = [](const Shape& s, DType t) {
    Shape st;
    st.ndim = s.ndim;
    std::int64_t step = 2 * static_cast<std::int64_t>(dtype_size(t));
    for (int d = s.ndim - 1; d >= 0; --d) {
      st[d] = step;
      step *= 2 * s[d];
    }
    return st;
  };
  std::uintptr_t next = kFakeBase;
  auto address = [&] { return next += kFakeBase; };
  std::vector<OperandView> in(p.inputs.size()), out(p.outputs.size());
  for (std::size_t k = 0; k < p.inputs.size(); ++k) {
    const Param& q = p.inputs[k];
    OperandView& v = in[k];
    v.dtype = q.dtype;
    if (q.weak || (k < host_value.size() && host_value[k])) {
      v.host_value = true;  // a 0-d value
      continue;
    }
    v.address = address();
    if (q.raw) {
      v.shape.ndim = 1;
      v.shape[0] = 1024;
      v.strides = ArrayView::contiguous_strides(v.shape, q.dtype);
    } else if (kind == "broadcast" && !updated_in_place(p, k)) {
      v.shape.ndim = 1;
      v.shape[0] = out_shape[1];
      v.strides = ArrayView::contiguous_strides(v.shape, q.dtype);
    } else {
      v.shape = out_shape;
      v.strides = kind == "strided" ? gapped(out_shape, q.dtype) : ArrayView::contiguous_strides(out_shape, q.dtype);
    }
  }
  for (std::size_t k = 0; k < p.outputs.size(); ++k) {
    OperandView& v = out[k];
    if (p.outputs[k].input >= 0) {  // an input updated in place is its own output
      v = in[static_cast<std::size_t>(p.outputs[k].input)];
      continue;
    }
    v.dtype = p.outputs[k].dtype;
    v.address = address();
    v.shape = out_shape;
    v.strides = kind == "strided" ? gapped(out_shape, v.dtype) : ArrayView::contiguous_strides(out_shape, v.dtype);
  }
  return g.plan(in, out);
}

std::vector<int> resolve_archs(const std::vector<std::string>& archs, int fallback) {
  std::vector<int> out;
  for (const std::string& a : archs) {
    int v = cap_arch(parse_arch(a));
    if (std::find(out.begin(), out.end(), v) == out.end()) out.push_back(v);
  }
  if (out.empty() && fallback > 0) out.push_back(cap_arch(fallback));
  if (out.empty()) {
    if (!gpu_available())
      fail(ErrorCode::Usage, "{}: name one in PrecompileOptions::archs (e.g. {{\"sm_90\"}}) or a manifest kernel's arch "
           "field (there is no GPU to take it from: {})", kNoTarget, gpu_unavailable_reason());
    out.push_back(cap_arch(device_info(0).arch()));
  }
  return out;
}

PrecompileReport run_precompile(const std::vector<PrecompileJob>& jobs, const PrecompileOptions& options,
                                PrecompileReport report) {
  std::mutex mu;
  std::atomic<std::size_t> next{0};
  std::size_t done = 0;
  auto work = [&] {
    for (;;) {
      std::size_t k = next++;
      if (k >= jobs.size()) return;
      const PrecompileJob& j = jobs[k];
      PrecompileItem item;
      item.kernel = j.kernel;
      item.layout = j.gpu ? j.layout.key_string() : j.what;
      item.target = "sm_" + std::to_string(j.arch);
      auto t0 = std::chrono::steady_clock::now();
      std::exception_ptr err;
      bool compiled = false;
      try {
        std::optional<RecordGroup> group;
        if (!j.group.empty()) group.emplace([&j] { return j.group; });
        if (j.gpu) {
          j.gpu->compile(j.layout, j.arch, &compiled);
        } else {
          CompileOptions co;
          co.arch = j.arch;
          compile_through_cache(j.source, j.name, co, &compiled);
        }
      } catch (const std::exception& e) {
        err = std::current_exception();
        item.error = fmt::format("{}{} {} {}: {}", j.where, j.kernel, item.layout, item.target, e.what());
      }
      item.ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
      item.result = err ? PrecompileItem::Result::Failed
                        : compiled ? PrecompileItem::Result::Compiled : PrecompileItem::Result::Cached;
      std::lock_guard<std::mutex> lock(mu);
      if (err) {
        report.failed++;
        report.errors.push_back(item.error);
        if (report.exit_code == 0) report.exit_code = error_code_of(err);
      } else if (compiled) {
        report.compiled++;
      } else {
        report.cached++;
      }
      item.done = ++done;
      item.total = jobs.size();
      if (options.progress) options.progress(item);
    }
  };
  unsigned n = options.jobs > 0 ? static_cast<unsigned>(options.jobs) : std::max(1u, std::thread::hardware_concurrency());
  n = static_cast<unsigned>(std::min<std::size_t>(n, jobs.size()));
  std::vector<std::thread> threads;
  for (unsigned t = 1; t < n; ++t) threads.emplace_back(work);
  work();
  for (auto& t : threads) t.join();
  return report;
}

// ---- ElementwiseKernel::precompile -----------------------------------------------

PrecompileReport ElementwiseKernel::precompile(const std::map<std::string, DType>& types,
                                               const std::vector<std::string>& layouts,
                                               const std::map<std::string, std::string>& scalars,
                                               const PrecompileOptions& options) const {
  std::vector<bool> host_value;
  std::vector<Arg> args = ElementwiseAccess::stand_ins(*this, types, scalars, host_value);
  const GpuProgram& g = ElementwiseAccess::program_for(*this, args.data(), args.size());
  std::vector<PrecompileJob> jobs;
  std::set<std::string> seen;
  for (int arch : resolve_archs(options.archs, g.options().arch))
    for (const std::string& l : layouts) {
      KernelLayout layout = layout_for(g, host_value, l, false, 2);
      if (seen.insert(layout.key_string() + "@" + std::to_string(arch)).second)
        jobs.push_back(PrecompileJob{&g, layout, arch, name() + binding_text(types), "", {}, {}, {}, {}});
    }
  return run_precompile(jobs, options);
}

// ---- manifests ---------------------------------------------------------------------

namespace {

struct ManifestRun {
  std::vector<std::unique_ptr<ElementwiseKernel>> kernels;  // own the GpuPrograms of their bindings
  std::vector<std::unique_ptr<GpuProgram>> programs;
  std::vector<PrecompileJob> jobs;
  PrecompileReport failures;

  void failed(const std::string& message, int code) {
    failures.failed++;
    failures.errors.push_back(message);
    if (failures.exit_code == 0) failures.exit_code = code;
  }
};

DType bound_dtype(const ManifestKernel& k, const std::map<std::string, DType>& b, const std::string& name,
                  const std::string& field) {
  if (auto t = dtype_from_numpy(name)) return *t;
  auto it = b.find(name);
  if (it == b.end())
    fail(ErrorCode::Data, "{}: '{}': '{}' is neither a dtype nor a placeholder of 'types'", k.pos_of(field).text(), field,
         name);
  return it->second;
}

// The GpuProgram and per-input host values of one binding of a manifest kernel.
const GpuProgram& instantiate(ManifestRun& run, const ManifestKernel& k, const std::map<std::string, DType>& b,
                              std::vector<bool>& host_value) {
  if (k.elementwise) {
    ElementwiseOptions o;
    o.fast_math = k.fast_math;
    o.raw_cuda = k.raw_cuda;
    o.preamble = k.preamble;
    o.nvrtc_options = k.nvrtc_options;
    run.kernels.push_back(std::make_unique<ElementwiseKernel>(k.in_params, k.out_params, k.operation, k.name, o));
    const ElementwiseKernel& ek = *run.kernels.back();
    std::map<std::string, std::string> scalars(k.scalars.begin(), k.scalars.end());
    std::vector<Arg> args = ElementwiseAccess::stand_ins(ek, b, scalars, host_value);
    return ElementwiseAccess::program_for(ek, args.data(), args.size());
  }
  std::vector<Param> params;
  for (const auto& in : k.inputs) {
    Param q{in.name, bound_dtype(k, b, in.dtype, "inputs"), in.flag == "weak", in.flag == "raw"};
    if (q.weak && !(q.dtype == DType::Int64 || q.dtype == DType::Float64 || q.dtype == DType::Complex128 ||
                    q.dtype == DType::Bool))
      fail(ErrorCode::Data, "{}: 'inputs': '{}' is weak, so it is int64, float64, complex128 or bool, not {}",
           k.pos_of("inputs").text(), in.name, dtype_name(q.dtype));
    params.push_back(q);
    host_value.push_back(in.flag == "scalar");
  }
  std::vector<OutputDecl> decls;
  for (const auto& [name, dt] : k.outputs) decls.push_back(OutputDecl{name, bound_dtype(k, b, dt, "outputs")});
  auto p = std::make_shared<Program>(compile_program(k.program, params, decls));
  GpuOptions g;
  g.kernel_name = k.name;
  g.fast_math = k.fast_math;
  g.nvrtc_options = k.nvrtc_options;
  run.programs.push_back(std::make_unique<GpuProgram>(std::move(p), std::move(g)));
  return *run.programs.back();
}

std::string shapes_text(const Program& p, const std::vector<Shape>& shapes, const std::vector<bool>& host_value) {
  std::string s;
  for (std::size_t k = 0; k < p.inputs.size(); ++k) {
    if (p.inputs[k].weak) continue;
    s += (s.empty() ? "" : ", ") + p.inputs[k].name + "=" + (host_value[k] ? std::string("scalar") : to_string(shapes[k]));
  }
  return "{" + s + "}";
}

// The jobs of a program with reductions: for each set of shapes, every kernel
// its passes compile (reduction_kernels: the planning code of a call, for
// inputs of those shapes in fresh device memory) for each target.
void reduction_jobs(ManifestRun& run, const ManifestKernel& k, const GpuProgram& g, const std::vector<bool>& host_value,
                    const std::vector<int>& archs, const std::string& label, std::set<std::string>& seen) {
  const Program& p = g.program();
  if (k.shapes.empty())
    fail(ErrorCode::Data, "{}: kernel '{}': a program with reductions is compiled for the input shapes it will be "
         "called with (its kernels depend on them): add shapes = [{{ {} = [1000] }}], one table per call's shapes",
         k.pos_of(k.elementwise ? "operation" : "program").text(), k.name,
         p.inputs.empty() ? std::string("x") : p.inputs[0].name);
  for (const char* f : {"layouts", "index", "ndim"})
    if (k.where.count(f))
      fail(ErrorCode::Data, "{}: kernel '{}': '{}': a program with reductions is planned from its shapes (contiguous "
           "arrays of those shapes), not from layouts; leave layouts, index and ndim out", k.pos_of(f).text(), k.name, f);
  for (std::size_t n = 0; n < k.shapes.size(); ++n) {
    const ManifestKernel::ShapeSet& set = k.shapes[n];
    const std::string where = fmt::format("{}: kernel '{}': 'shapes'", set.pos.text(), k.name);
    std::vector<Shape> shapes(p.inputs.size());
    std::vector<bool> hv = host_value;
    for (const auto& [name, ext] : set.inputs) {
      std::size_t i = 0;
      while (i < p.inputs.size() && p.inputs[i].name != name) ++i;
      if (i == p.inputs.size()) fail(ErrorCode::Data, "{}: '{}' is not an input of the kernel", where, name);
      const Param& q = p.inputs[i];
      if ((q.weak || host_value[i]) && ext)
        fail(ErrorCode::Data, "{}: '{}' is passed as a scalar ({}), so it takes no shape; leave it out", where, name,
             q.weak ? "a weak one" : k.elementwise ? "scalars" : ":scalar");
      if (!ext && k.elementwise && !q.weak && !host_value[i])
        fail(ErrorCode::Data, "{}: '{}' is \"scalar\", but the kernel is given it as an array; declare its kind in "
             "scalars (e.g. scalars = {{ {} = \"{}\" }}) or give its shape", where, name, name, dtype_name(q.dtype));
      if (!ext) hv[i] = true;
      else
        for (std::int64_t e : *ext) shapes[i][shapes[i].ndim++] = e;
    }
    std::vector<ArrayView> views(p.inputs.size());
    for (std::size_t i = 0; i < p.inputs.size(); ++i) {
      const Param& q = p.inputs[i];
      bool given = false;
      for (const auto& in : set.inputs) given = given || in.first == q.name;
      if (!given && !q.weak && !hv[i])
        fail(ErrorCode::Data, "{}: no shape for input '{}' (an array): add {} = [1000] (its extents), or {} = \"scalar\""
             " for a 0-d value passed from the host", where, q.name, q.name, q.name);
      views[i].dtype = q.dtype;
      views[i].shape = hv[i] || q.weak ? Shape{} : shapes[i];
      views[i].device = hv[i] || q.weak ? Device::cpu() : Device::cuda(0);
    }
    const std::string text = label + shapes_text(p, shapes, hv);
    std::vector<PassKernel> kernels;
    try {
      kernels = reduction_kernels(g, shapes, hv);
      // An ElementwiseKernel called with its outputs allocated gives the call
      // the inputs' broadcast shape (ReductionKernel and given outputs give
      // none): those calls plan their epilogues for it. A program whose
      // outputs have different shapes cannot be called so, and has none.
      if (k.elementwise) {
        const Shape all = broadcast_shape(p, views.data());
        std::vector<PassKernel> allocated;
        try {
          allocated = reduction_kernels(g, shapes, hv, &all);
        } catch (const Error& e) {
          if (e.code() != ErrorCode::Usage) throw;
        }
        for (PassKernel& pk : allocated) kernels.push_back(std::move(pk));
      }
    } catch (const Error& e) {
      fail(e.code(), "{}: {}: {}", where, shapes_text(p, shapes, hv), e.what());
    }
    // Each kernel once (two passes, or both calls above, may share one).
    std::vector<std::pair<const PassKernel*, std::string>> unique;
    std::set<std::string> ids;
    for (const PassKernel& pk : kernels) {
      if (!pk.note.empty()) continue;
      std::string id = pk.program ? fmt::format("{}|{}", static_cast<const void*>(pk.program), pk.layout.key_string())
                                  : pk.name + "|" + pk.source;
      if (ids.insert(id).second) unique.emplace_back(&pk, std::move(id));
    }
    for (int arch : archs) {
      const std::string entry = reduction_recipe(g, views.data(), arch);
      for (std::size_t n = 0; n < unique.size(); ++n) {
        const PassKernel& pk = *unique[n].first;
        PrecompileJob j;
        j.arch = arch;
        j.kernel = fmt::format("{} kernel {}/{}", text, n + 1, unique.size());
        j.where = set.pos.text() + ": ";
        j.group = entry;
        j.gpu = pk.program;
        j.layout = pk.layout;
        if (!pk.program) {
          j.name = pk.name;
          j.what = pk.what;
          j.source = pk.source;
        }
        if (seen.insert(unique[n].second + "@" + std::to_string(arch)).second) run.jobs.push_back(std::move(j));
      }
    }
  }
}

PrecompileReport precompile_parsed(const Manifest& m, const PrecompileOptions& options) {
  ManifestRun run;
  std::set<std::string> seen;  // source-independent: the same kernel twice in a manifest compiles once
  for (const ManifestKernel& k : m.kernels) {
    std::vector<int> archs;
    {
      std::vector<std::string> names = options.archs;
      if (names.empty())
        for (int a : k.archs) names.push_back(std::to_string(a));
      archs = resolve_archs(names, 0);
    }
    for (const auto& b : bindings(k.types)) {
      const std::string label = k.name + binding_text(b);
      try {
        std::vector<bool> host_value;
        const GpuProgram& g = instantiate(run, k, b, host_value);
        if (g.program().has_reductions) {
          reduction_jobs(run, k, g, host_value, archs, label, seen);
          continue;
        }
        if (!k.shapes.empty())
          fail(ErrorCode::Data, "{}: kernel '{}': 'shapes': the program has no reductions: its kernels are planned "
               "from layouts (contiguous, strided, broadcast), not shapes; leave shapes out", k.pos_of("shapes").text(),
               k.name);
        for (const ManifestLayout& l : k.layouts) {
          bool exact = l.name.find('|') != std::string::npos;
          for (int bits : exact ? std::vector<int>{0} : k.index) {
            KernelLayout layout;
            try {
              layout = layout_for(g, host_value, l.name, bits == 64, k.ndim);
            } catch (const Error& e) {
              fail(e.code(), "{}: 'layouts': {}", l.pos.text(), e.what());
            }
            for (int arch : archs) {
              std::string id = g.recipe(layout, arch);
              if (seen.insert(id).second) run.jobs.push_back(PrecompileJob{&g, layout, arch, label, k.pos.text() + ": ", {}, {}, {}, {}});
            }
          }
        }
      } catch (const Error& e) {
        std::string msg = e.what();
        // Messages that already say where in the manifest stand as they are.
        if (msg.compare(0, m.file.size() + 1, m.file + ":") != 0)
          msg = fmt::format("{}: kernel '{}': {}", k.pos_of(k.elementwise ? "operation" : "program").text(), label, msg);
        run.failed(msg, e.exit_code());
      }
    }
  }
  return run_precompile(run.jobs, options, run.failures);
}

}  // namespace

PrecompileReport precompile(const std::string& manifest_path, const PrecompileOptions& options) {
  return precompile_parsed(read_manifest(manifest_path), options);
}

PrecompileReport precompile_manifest(std::string_view toml, const std::string& name, const PrecompileOptions& options) {
  return precompile_parsed(parse_manifest(toml, name), options);
}

}  // namespace cujit

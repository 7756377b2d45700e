#include "gpu/launch.hpp"
#include "plan/shapes.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <cstring>
#include <map>
#include <mutex>
#include <shared_mutex>
#include <unordered_map>

#include "lang/check.hpp"
#include "gpu/compile.hpp"
#include "core/driver.hpp"
#include "cache/entry.hpp"
#include "core/fail.hpp"
#include "cache/record.hpp"
#include "cache/kernel_cache.hpp"
#include "cache/kernel_image.hpp"
#include "cache/key.hpp"
#include "gpu/kernel_key.hpp"
#include "gpu/layouts/layout_codegen.hpp"
#include "core/scratch.hpp"

namespace cujit {

namespace {

using clock_type = std::chrono::steady_clock;

double ms_since(clock_type::time_point t0) {
  return std::chrono::duration<double, std::milli>(clock_type::now() - t0).count();
}

// ---- the call fingerprint ----
//
// Everything plan_launch's answer depends on, as 64-bit words: per operand
// its dtype, rank, device and the low 4 bits of its address (vectorization
// needs up to 16-byte alignment), then its extents and byte strides. Two calls
// with equal fingerprints get the same layout, kernel, grid and layout
// argument; only the pointers and scalar values differ.
std::size_t fingerprint_words(const ArrayView* in, std::size_t nin, const ArrayView* out, std::size_t nout) {
  std::size_t w = 1;
  for (std::size_t k = 0; k < nin; ++k) w += 1 + 2 * static_cast<std::size_t>(std::max(0, std::min(in[k].shape.ndim, kMaxDims)));
  for (std::size_t k = 0; k < nout; ++k) w += 1 + 2 * static_cast<std::size_t>(std::max(0, std::min(out[k].shape.ndim, kMaxDims)));
  return w;
}

inline std::uint64_t operand_tag(const ArrayView& v) {
  const bool host = v.device.kind == Device::CPU;
  std::uint64_t align = host ? 0 : reinterpret_cast<std::uintptr_t>(v.data) & 15u;
  return static_cast<std::uint64_t>(v.dtype) | static_cast<std::uint64_t>(static_cast<std::uint8_t>(v.shape.ndim)) << 8 |
         align << 16 | static_cast<std::uint64_t>(host ? 0 : 1) << 24 |
         static_cast<std::uint64_t>(static_cast<std::uint32_t>(host ? 0 : v.device.id)) << 32;
}

inline std::uint64_t* put_operand(std::uint64_t* w, const ArrayView& v) {
  *w++ = operand_tag(v);
  const int nd = std::max(0, std::min(v.shape.ndim, kMaxDims));
  for (int d = 0; d < nd; ++d) *w++ = static_cast<std::uint64_t>(v.shape[d]);
  for (int d = 0; d < nd; ++d) *w++ = static_cast<std::uint64_t>(v.strides[d]);
  return w;
}

inline std::uint64_t hash_words(const std::uint64_t* w, std::size_t n) {
  std::uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
  for (std::size_t k = 0; k < n; ++k) {
    h ^= w[k] + 0x9e3779b97f4a7c15ull + (h << 6) + (h >> 2);
    h *= 0xff51afd7ed558ccdull;
  }
  return h ^ (h >> 33);
}

std::string device_text(const Device& d) {
  return d.kind == Device::CPU ? "host memory" : fmt::format("CUDA device {}", d.id);
}

}  // namespace

namespace {

// The kernel of one program+layout for one arch, and where it is loaded.
struct LayoutKernel {
  KernelLayout layout;
  std::vector<ArgSlot> sig;
  int arch = 0;
  std::mutex mu;  // guards everything below: the first compile and each device's load
  std::shared_ptr<const cache::Entry> entry;
  std::string module_key;
  struct OnDevice {
    CUfunction fn = nullptr;
    int block = 0;
    unsigned max_grid = 0;
  };
  std::map<int, OnDevice> devices;
};

// A planned call shape: everything launch needs besides pointers and values.
struct Prepared {
  std::vector<std::uint64_t> fingerprint;
  std::int64_t n = 0;
  const LayoutKernel* kernel = nullptr;  // null when n == 0
  CUfunction fn = nullptr;
  unsigned grid = 0, block = 0;
  unsigned grid_y = 1, grid_z = 1, block_y = 1;  // Rows layouts: y over rows
  std::vector<unsigned char> layout_arg;
  std::string layout;
};

// Beyond this many call shapes per program new ones are planned on every call
// rather than kept, so a caller cycling through endless shapes cannot grow
// memory without bound. Entries are never removed: the hot path hands out
// plain pointers to them.
constexpr std::size_t kMaxPrepared = 4096;

}  // namespace

const char* kernel_source_name(LaunchStats::Kernel k) {
  switch (k) {
    case LaunchStats::Kernel::Prepared: return "prepared";
    case LaunchStats::Kernel::Memory: return "memory cache";
    case LaunchStats::Kernel::Disk: return "disk cache";
    case LaunchStats::Kernel::Compiled: return "compiled";
  }
  return "?";
}

struct GpuProgram::Impl {
  std::shared_ptr<const Program> program;
  GpuOptions opt;
  cache::Key base_key;  // the program, its parameters and the renderer: hashed once
  std::string recipe_fields;  // manifest fields that make the program again (GpuOptions::recipe)

  mutable std::shared_mutex prepared_mu;
  mutable std::unordered_map<std::uint64_t, std::vector<std::unique_ptr<Prepared>>> prepared;
  mutable std::size_t prepared_count = 0;

  mutable std::mutex layouts_mu;
  mutable std::map<std::string, std::unique_ptr<LayoutKernel>> layouts;  // by layout key + "@" + arch

  // Error slots (4 int64 each), reused across calls; one per call in flight.
  mutable std::mutex err_mu;
  mutable std::vector<DeviceBuffer> err_free;
  const bool needs_err;

  mutable std::mutex derived_mu;
  mutable std::map<std::string, std::unique_ptr<GpuProgram>> derived;  // by key

  Impl(std::shared_ptr<const Program> p, GpuOptions o)
      : program(std::move(p)), opt(std::move(o)), needs_err(!opt.render && program->can_fail) {
    std::vector<OutputDecl> outs;
    for (const Var& v : program->outputs) outs.push_back(OutputDecl{v.name, v.dtype});
    base_key = program_key(program->ast.source, program->inputs, outs, opt.kernel_name, opt.render_id,
                           static_cast<bool>(opt.render), opt.fast_math);
    recipe_fields = opt.recipe.empty() ? program_recipe(*program, opt.kernel_name) : opt.recipe;
    if (opt.fast_math) recipe_fields += "fast_math = true\n";
    if (!opt.nvrtc_options.empty()) {
      recipe_fields += "nvrtc_options = [";
      for (std::size_t k = 0; k < opt.nvrtc_options.size(); ++k)
        recipe_fields += (k ? ", " : "") + toml_quote(opt.nvrtc_options[k]);
      recipe_fields += "]\n";
    }
  }

  std::string recipe_for(const KernelLayout& l, int arch) const {
    return "[[kernel]]\n" + recipe_fields + "layouts = [" + toml_quote(l.key_string()) + "]\narch = [\"sm_" +
           std::to_string(arch) + "\"]\n";
  }

  const Prepared* find(std::uint64_t h, const std::uint64_t* fp, std::size_t nfp) const {
    std::shared_lock<std::shared_mutex> lock(prepared_mu);
    auto it = prepared.find(h);
    if (it == prepared.end()) return nullptr;
    for (const auto& p : it->second)
      if (p->fingerprint.size() == nfp && std::equal(fp, fp + nfp, p->fingerprint.begin())) return p.get();
    return nullptr;
  }

  int arch_for(int device) const {
    return cap_arch(opt.arch > 0 ? opt.arch : device_info(device).arch());
  }

  std::string render(const KernelLayout& l) const {
    return opt.render ? opt.render(*program, l, opt.kernel_name) : generate_source(*program, l, opt.kernel_name);
  }

  CompileOptions compile_options(int arch) const {
    CompileOptions co;
    co.arch = arch;
    co.fast_math = opt.fast_math;
    co.extra = opt.nvrtc_options;
    co.user_code = static_cast<bool>(opt.render);  // raw CUDA mode: its compile errors are the user's
    return co;
  }

  // The compiled kernel for a layout: memory cache by the program+layout key
  // first (no source rendered), then the disk cache or NVRTC by the source's key.
  LayoutKernel& kernel_for(const KernelLayout& l, int arch, LaunchStats* stats) const {
    std::string name = l.key_string() + "@" + std::to_string(arch);
    LayoutKernel* lk;
    {
      std::lock_guard<std::mutex> lock(layouts_mu);
      auto& slot = layouts[name];
      if (!slot) {
        slot = std::make_unique<LayoutKernel>();
        slot->layout = l;
        slot->arch = arch;
      }
      lk = slot.get();
    }
    std::lock_guard<std::mutex> lock(lk->mu);
    if (lk->entry) {
      if (stats) stats->kernel = LaunchStats::Kernel::Memory;
      return *lk;
    }
    lk->sig = kernel_signature(*program, l);
    const CompileOptions co = compile_options(arch);
    const KernelKey keys(base_key, l, co);
    const cache::Key& pkey = keys.memory();
    cache::KernelCache& kc = cache::global_cache();
    std::shared_ptr<const cache::Entry> entry = kc.find_in_memory(pkey);
    if (entry) {
      if (stats) stats->kernel = LaunchStats::Kernel::Memory;
    } else {
      auto t0 = clock_type::now();
      std::string source = render(l);
      if (stats) stats->codegen_ms = ms_since(t0);
      bool compiled = false;
      t0 = clock_type::now();
      entry = compile_through_cache(source, opt.kernel_name, co, &compiled, recipe_for(l, arch), &lk->sig);
      if (stats) {
        stats->compile_ms = ms_since(t0);
        stats->kernel = compiled ? LaunchStats::Kernel::Compiled : LaunchStats::Kernel::Disk;
      }
      kc.put_in_memory(pkey, entry);
    }
    lk->entry = std::move(entry);
    lk->module_key = pkey.hex();
    return *lk;
  }

  // The kernel's function on `device`, its block size and grid cap: loaded and
  // measured once per device.
  LayoutKernel::OnDevice on_device(LayoutKernel& lk, int device, LaunchStats* stats) const {
    std::lock_guard<std::mutex> lock(lk.mu);
    auto it = lk.devices.find(device);
    if (it != lk.devices.end()) return it->second;
    auto t0 = clock_type::now();
    const DeviceInfo& info = device_info(device);
    LayoutKernel::OnDevice od;
    od.fn = get_function(device, lk.module_key, select_image(entry_images(*lk.entry, lk.arch), info.arch()),
                         opt.kernel_name.c_str());
    // Blocks of 256 threads (fewer only where the kernel's registers forbid),
    // and enough of them for one vector step per thread: measured on an H200,
    // `out = sin(x)*5` over 2^28 floats reaches 1.00 of a device copy so,
    // against 0.93 with occupancy's 1024-thread blocks capped at four waves
    // and a grid-stride loop (bench/results). The loop still covers grids
    // beyond the device's limit.
    od.block = std::min(256, max_potential_block_size(device, od.fn));
    od.max_grid = static_cast<unsigned>(std::max(1, info.max_grid_x));
    if (stats) stats->load_ms = ms_since(t0);
    lk.devices.emplace(device, od);
    return od;
  }

  // The one planning step of launch() and GpuProgram::plan().
  LaunchPlan plan_for(const std::vector<OperandView>& iv, const std::vector<OperandView>& ov) const {
    // Raw CUDA kernels (opt.render) have no rows or tiles renderer.
    return plan_launch(*program, iv, ov, opt.max_vector, opt.force_index64, !opt.render);
  }

  // The slow path: validates the call, plans it and prepares the kernel.
  const Prepared* prepare(int device, const ArrayView* in, const ArrayView* out, const std::uint64_t* fp,
                          std::size_t nfp, std::uint64_t h, LaunchStats* stats) const {
    const Program& p = *program;
    auto t0 = clock_type::now();
    const DeviceInfo& info = device_info(device);  // validates the ordinal
    (void)info;
    std::vector<OperandView> iv(p.inputs.size()), ov(p.outputs.size());
    for (std::size_t k = 0; k < p.inputs.size(); ++k) {
      const Param& q = p.inputs[k];
      const ArrayView& v = in[k];
      if (v.shape.ndim < 0 || v.shape.ndim > kMaxDims) fail(ErrorCode::Usage, "input '{}' has an invalid rank {}", q.name, v.shape.ndim);
      OperandView& o = iv[k];
      o.dtype = v.dtype;
      o.shape = v.shape;
      o.strides = v.strides;
      if (q.weak) {
        if (v.device.kind != Device::CPU || v.shape.ndim != 0 || v.dtype != q.dtype)
          fail(ErrorCode::Usage, "weak scalar '{}' must be passed as a host 0-d {} value, got {} {} in {}", q.name,
               dtype_name(q.dtype), dtype_name(v.dtype), to_string(v.shape), device_text(v.device));
        o.host_value = true;
        continue;
      }
      if (v.dtype != q.dtype)
        fail(ErrorCode::Data, "input '{}' is {}, but the program was checked for {}", q.name, dtype_name(v.dtype),
             dtype_name(q.dtype));
      if (v.device.kind == Device::CPU) {
        if (q.raw || v.shape.ndim != 0)
          fail(ErrorCode::Data,
               "input '{}' is in host memory, but the kernel runs on CUDA device {}: copy it there first "
               "(Array::to_device); only 0-d host values (typed scalars) are passed from the host",
               q.name, device);
        if (!v.data) fail(ErrorCode::Usage, "input '{}' is a 0-d host value with a null pointer", q.name);
        o.host_value = true;
        continue;
      }
      if (v.device.id != device)
        fail(ErrorCode::Data, "input '{}' is on CUDA device {}, but the kernel runs on CUDA device {}", q.name, v.device.id,
             device);
      o.address = reinterpret_cast<std::uintptr_t>(v.data);
    }
    for (std::size_t k = 0; k < p.outputs.size(); ++k) {
      const ArrayView& v = out[k];
      if (v.shape.ndim < 0 || v.shape.ndim > kMaxDims)
        fail(ErrorCode::Usage, "output '{}' has an invalid rank {}", p.outputs[k].name, v.shape.ndim);
      if (v.device.kind != Device::CUDA || v.device.id != device)
        fail(ErrorCode::Data, "output '{}' is in {}, but the kernel runs on CUDA device {}", p.outputs[k].name,
             device_text(v.device), device);
      ov[k] = OperandView{reinterpret_cast<std::uintptr_t>(v.data), v.dtype, v.shape, v.strides, false};
    }
    LaunchPlan plan = plan_for(iv, ov);
    if (stats) {
      stats->plan_ms = ms_since(t0);
      stats->layout = plan.layout.key_string();
    }

    auto pr = std::make_unique<Prepared>();
    pr->fingerprint.assign(fp, fp + nfp);
    pr->n = plan.n;
    pr->layout = plan.layout.key_string();
    pr->layout_arg = std::move(plan.layout_arg);
    if (plan.n > 0) {
      LayoutKernel& lk = kernel_for(plan.layout, arch_for(device), stats);
      LayoutKernel::OnDevice od = on_device(lk, device, stats);
      pr->kernel = &lk;
      pr->fn = od.fn;
      // Raw CUDA kernels (raw_cuda.cpp) take an element a thread in either of
      // their layouts, whatever the language's kernel of the layout takes.
      const LaunchGrid g = opt.render ? thread_grid(plan.n, od.block, od.max_grid)
                                      : layout_codegen(plan.layout.kind).grid(plan, od.block, od.max_grid);
      pr->grid = g.grid;
      pr->grid_y = g.grid_y;
      pr->block = g.block;
      pr->block_y = g.block_y;
    }

    std::unique_lock<std::shared_mutex> lock(prepared_mu);
    auto& bucket = prepared[h];
    for (const auto& q : bucket)  // another thread planned the same shape meanwhile
      if (q->fingerprint == pr->fingerprint) return q.get();
    if (prepared_count >= kMaxPrepared) {
      // Full: this call's plan lives in a thread-local slot until the next overflow.
      thread_local std::unique_ptr<Prepared> overflow;
      overflow = std::move(pr);
      return overflow.get();
    }
    ++prepared_count;
    bucket.push_back(std::move(pr));
    return bucket.back().get();
  }

  DeviceBuffer take_err(int device) const {
    {
      std::lock_guard<std::mutex> lock(err_mu);
      for (auto it = err_free.begin(); it != err_free.end(); ++it)
        if (it->device() == device) {
          DeviceBuffer b = std::move(*it);
          err_free.erase(it);
          return b;
        }
    }
    return DeviceBuffer(device, 4 * sizeof(std::int64_t));
  }
  void give_err(DeviceBuffer b) const {
    std::lock_guard<std::mutex> lock(err_mu);
    err_free.push_back(std::move(b));
  }
};

GpuProgram::GpuProgram(std::shared_ptr<const Program> program, GpuOptions options)
    : impl_(std::make_unique<Impl>(std::move(program), std::move(options))) {}

GpuProgram::~GpuProgram() = default;

const Program& GpuProgram::program() const { return *impl_->program; }

const GpuProgram& GpuProgram::derived(const std::string& key,
                                      const std::function<std::shared_ptr<const Program>()>& make) const {
  std::lock_guard<std::mutex> lock(impl_->derived_mu);
  std::unique_ptr<GpuProgram>& g = impl_->derived[key];
  if (!g) {
    GpuOptions o = impl_->opt;
    o.render = nullptr;  // raw CUDA programs have no reductions: a derived pass is the language's
    o.render_id = "derived " + key + (impl_->opt.render_id.empty() ? "" : " of " + impl_->opt.render_id);
    o.recipe.clear();
    g = std::make_unique<GpuProgram>(make(), std::move(o));
  }
  return *g;
}
const GpuOptions& GpuProgram::options() const { return impl_->opt; }
std::string GpuProgram::source(const KernelLayout& layout) const { return impl_->render(layout); }

void GpuProgram::launch(int device, const std::vector<ArrayView>& inputs, const std::vector<ArrayView>& outputs,
                        CUstream stream, LaunchStats* stats) const {
  const Program& p = *impl_->program;
  if (inputs.size() != p.inputs.size() || outputs.size() != p.outputs.size())
    fail(ErrorCode::Usage, "the program has {} inputs and {} outputs, but {} and {} were given", p.inputs.size(),
         p.outputs.size(), inputs.size(), outputs.size());
  launch(device, inputs.data(), outputs.data(), stream, stats);
}

void GpuProgram::launch(int device, const ArrayView* in, const ArrayView* out, CUstream stream, LaunchStats* stats) const {
  const Impl& m = *impl_;
  const Program& p = *m.program;
  const std::size_t nin = p.inputs.size(), nout = p.outputs.size();

  Scratch<std::uint64_t, 96> fp(fingerprint_words(in, nin, out, nout));
  {
    std::uint64_t* w = fp.data();
    *w++ = static_cast<std::uint64_t>(static_cast<std::uint32_t>(device));
    for (std::size_t k = 0; k < nin; ++k) w = put_operand(w, in[k]);
    for (std::size_t k = 0; k < nout; ++k) w = put_operand(w, out[k]);
  }
  const std::uint64_t h = hash_words(fp.data(), fp.size());
  const Prepared* pr = m.find(h, fp.data(), fp.size());
  if (pr) {
    if (stats) {
      *stats = LaunchStats{};
      stats->layout = pr->layout;
    }
  } else {
    if (stats) *stats = LaunchStats{};
    pr = m.prepare(device, in, out, fp.data(), fp.size(), h, stats);
  }
  check_overlap(p, in, out);
  if (stats) {
    stats->grid = pr->grid;
    stats->block = pr->block;
    stats->grid_y = pr->grid_y;
    stats->grid_z = pr->grid_z;
    stats->block_y = pr->block_y;
    stats->n = pr->n;
  }
  if (pr->n == 0) return;

  // Kernel parameters: pointers to each argument's bytes. Pointer arguments
  // point at the views' own data members, values at the caller's host scalars,
  // so nothing is copied before cuLaunchKernel copies them all.
  const std::vector<ArgSlot>& sig = pr->kernel->sig;
  Scratch<void*, 48> params(sig.size());
  Scratch<std::int64_t, 16> sizes(sig.size());
  std::int64_t count = pr->n;
  CUdeviceptr err_ptr = 0;
  DeviceBuffer err;
  if (m.needs_err) {
    err = m.take_err(device);
    err_ptr = err.ptr();
  }
  for (std::size_t s = 0; s < sig.size(); ++s) {
    const ArgSlot& a = sig[s];
    switch (a.kind) {
      case ArgSlot::Kind::Output: params[s] = const_cast<void**>(&out[a.operand].data); break;
      case ArgSlot::Kind::Input:
      case ArgSlot::Kind::RawData: params[s] = const_cast<void**>(&in[a.operand].data); break;
      case ArgSlot::Kind::InputValue:
        params[s] = in[a.operand].data;
        if (!params[s]) fail(ErrorCode::Usage, "input '{}': a host value with a null pointer", p.inputs[a.operand].name);
        break;
      case ArgSlot::Kind::Size:
        sizes[s] = in[a.operand].size();
        params[s] = &sizes[s];
        break;
      case ArgSlot::Kind::Count: params[s] = &count; break;
      case ArgSlot::Kind::Layout: params[s] = const_cast<unsigned char*>(pr->layout_arg.data()); break;
      case ArgSlot::Kind::Error: params[s] = &err_ptr; break;
    }
  }

  auto t0 = stats ? clock_type::now() : clock_type::time_point();
  if (!m.needs_err) {
    launch_grid(device, pr->fn, pr->grid, pr->grid_y, pr->grid_z, pr->block, pr->block_y, params.data(), stream);
    if (stats) stats->launch_ms = ms_since(t0);
    return;
  }
  // The error slot is zeroed on the same stream, so the launch sees it zero;
  // reading it back waits for the kernel.
  std::int64_t e[4] = {0, 0, 0, 0};
  try {
    memset_d8(device, err_ptr, 0, sizeof e, stream);
    launch_grid(device, pr->fn, pr->grid, pr->grid_y, pr->grid_z, pr->block, pr->block_y, params.data(), stream);
    memcpy_dtoh(device, e, err_ptr, sizeof e, stream);
    synchronize(device, stream);
  } catch (...) {
    m.give_err(std::move(err));
    throw;
  }
  m.give_err(std::move(err));
  if (stats) stats->launch_ms = ms_since(t0);
  if (e[0] != 0) fail(ErrorCode::Data, kernel_error_message(p, e));
}

// ---------------------------------------------------------------- copies

const GpuProgram& copy_program(DType t) {
  static std::mutex mu;
  static std::unique_ptr<GpuProgram> programs[kNumDTypes];
  std::lock_guard<std::mutex> lock(mu);
  auto& g = programs[static_cast<int>(t)];
  if (!g) {
    auto p = std::make_shared<Program>(
        compile_program("out = x", {Param{"x", t, false, false}}, {OutputDecl{"out", t}}, Outputs::Exact));
    GpuOptions o;
    o.kernel_name = "cujit_copy";
    g = std::make_unique<GpuProgram>(std::move(p), o);
  }
  return *g;
}

void copy_on_device(const ArrayView& dst, const ArrayView& src, CUstream stream) {
  if (dst.dtype != src.dtype || dst.shape != src.shape)
    fail(ErrorCode::Usage, "copy_on_device: {} {} into {} {}", dtype_name(src.dtype), to_string(src.shape),
         dtype_name(dst.dtype), to_string(dst.shape));
  if (src.device.kind != Device::CUDA || dst.device != src.device)
    fail(ErrorCode::Usage, "copy_on_device: both arrays must be on one CUDA device ({} and {})", device_text(src.device),
         device_text(dst.device));
  copy_program(src.dtype).launch(src.device.id, &src, &dst, stream);
  if (!stream) synchronize(src.device.id, nullptr);
}

KernelImages entry_images(const cache::Entry& e, int arch) { return KernelImages{e.target, arch, &e.cubin, &e.ptx}; }

std::vector<KernelLayout> precompile_layouts(const Program& p, const std::string& which, int ndim) {
  std::vector<KernelLayout> layouts;
  if (which == "contiguous" || which == "all") {
    layouts.push_back(contiguous_layout(p, preferred_vec(p)));
    layouts.push_back(contiguous_layout(p, 1));
  }
  if (which == "strided" || which == "all") layouts.push_back(strided_layout(p, ndim));
  if (layouts.empty()) fail(ErrorCode::Usage, "--layout must be contiguous, strided or all, got '{}'", which);
  return layouts;
}

std::shared_ptr<const cache::Entry> compile_through_cache(const std::string& source, const std::string& kernel_name,
                                                          const CompileOptions& co, bool* compiled,
                                                          const std::string& own_recipe,
                                                          const std::vector<ArgSlot>* signature,
                                                          cache::KernelCache* cache) {
  // A pass of a program with reductions carries (and records) the program's whole entry.
  const std::string recipe = group_recipe(own_recipe);
  const int arch = cap_arch(co.arch);
  const std::string target = fmt::format("sm_{}", arch);
  const cache::Key key = kernel_cache_key(source, co);
  cache::KernelExpect expect;
  expect.name = kernel_name;
  expect.arch = arch;
  if (signature) {
    expect.params.emplace();
    for (const ArgSlot& a : *signature) expect.params->push_back({a.size, a.align});
  }
  cache::KernelCache& kc = cache ? *cache : cache::global_cache();
  bool ran = false;
  auto entry = kc.get_or_compile(
      key, target,
      [&] {
        ran = true;
        CompiledKernel k = compile_cuda(source, kernel_name, co);
        cache::Entry e;
        e.target = k.target;
        e.cubin = std::move(k.cubin);
        e.ptx = std::move(k.ptx);
        if (!recipe.empty()) e.ptx += recipe_trailer(recipe);
        e.source = source;
        return e;
      },
      [&](const cache::Entry& e) { return cache::check_kernel_image(e, expect); });
  if (compiled) *compiled = ran;
  // Recorded only when this process compiled: a kernel found in the cache
  // needs no precompiling.
  if (ran && !recipe.empty() && recording()) record_kernel(recipe);
  return entry;
}

std::string program_recipe(const Program& p, const std::string& kernel_name) {
  std::string r = "name = " + toml_quote(kernel_name) + "\nprogram = " + toml_quote(p.ast.source) + "\ninputs = [";
  for (std::size_t k = 0; k < p.inputs.size(); ++k) {
    const Param& q = p.inputs[k];
    r += (k ? ", " : "") + toml_quote(q.name + "=" + std::string(dtype_name(q.dtype)) + (q.weak ? ":weak" : q.raw ? ":raw" : ""));
  }
  r += "]\n";
  std::string outs;
  for (const Var& v : p.outputs)  // an input updated in place is declared by the program text itself
    if (v.declared && v.input < 0) outs += (outs.empty() ? "" : ", ") + toml_quote(v.name + "=" + std::string(dtype_name(*v.declared)));
  if (!outs.empty()) r += "outputs = [" + outs + "]\n";
  return r;
}

KernelLayout GpuProgram::plan(const std::vector<OperandView>& inputs, const std::vector<OperandView>& outputs) const {
  return impl_->plan_for(inputs, outputs).layout;
}

std::shared_ptr<const cache::Entry> GpuProgram::compile(const KernelLayout& layout, int arch, bool* compiled) const {
  validate_layout(*impl_->program, layout);
  LaunchStats stats;
  const auto& lk = impl_->kernel_for(layout, cap_arch(arch), &stats);
  if (compiled) *compiled = stats.kernel == LaunchStats::Kernel::Compiled;
  return lk.entry;
}

const std::string& GpuProgram::recipe_fields() const { return impl_->recipe_fields; }

std::string GpuProgram::recipe(const KernelLayout& layout, int arch) const {
  return impl_->recipe_for(layout, cap_arch(arch));
}

}  // namespace cujit

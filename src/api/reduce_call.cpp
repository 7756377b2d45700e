#include "api/reduce_call.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>

#include "core/array.hpp"
#include "core/driver.hpp"
#include "cache/record.hpp"
#include "core/fail.hpp"
#include "cpu/reduce.hpp"
#include "gpu/codegen.hpp"
#include "gpu/compile.hpp"
#include "gpu/reduce_launch.hpp"
#include "plan/reduce_plan.hpp"
#include "plan/shapes.hpp"

namespace cujit {

namespace {

// normalize_rows keeps a row of up to this many float32 elements on chip
// (8 logical vectors of 16 bytes per thread, 256 threads).
constexpr std::int64_t kMaxRowLength = 8 * 256 * 4;

ReduceKernels& kernels() {
  static ReduceKernels k;
  return k;
}

// One workspace per device and stream: work on one stream runs in order, so
// its partials and counters are never in use by two launches at once.
// Never destroyed: at exit the driver may be gone before static destructors
// run, and a workspace's destructor waits for its device.
ReduceWorkspace& workspace(int device, CUstream stream) {
  static std::mutex mu;
  static auto* all = new std::map<std::pair<int, CUstream>, std::unique_ptr<ReduceWorkspace>>;
  std::lock_guard<std::mutex> lock(mu);
  auto& w = (*all)[{device, stream}];
  if (!w) w = std::make_unique<ReduceWorkspace>(device);
  return *w;
}

ReduceOp kernel_op(Reduce r) {
  switch (r) {
    case Reduce::Sum: return ReduceOp::Sum;
    case Reduce::Prod: return ReduceOp::Prod;
    case Reduce::Min: return ReduceOp::Min;
    case Reduce::Max: return ReduceOp::Max;
    case Reduce::Mean: return ReduceOp::Mean;
    case Reduce::Var: return ReduceOp::Var;
    case Reduce::Std: return ReduceOp::Std;
    case Reduce::Any: return ReduceOp::Any;
    case Reduce::All: return ReduceOp::All;
    case Reduce::ArgMin: return ReduceOp::ArgMin;
    case Reduce::ArgMax: return ReduceOp::ArgMax;
    case Reduce::None: break;
  }
  fail(ErrorCode::Internal, "reduce_call: a step with no reduction");
}

// Whether the reduction kernels compute the step as NumPy does. A NaN-ignoring
// sum or product is the plain one of a map with NaN as its identity; the other
// NaN-ignoring reductions need NumPy's all-NaN rules, which the CPU has.
bool on_kernels(const plan::ReduceStep& st) {
  if (is_complex(st.in) || is_complex(st.acc) || is_complex(st.out)) return false;
  if (st.count == 0 || !std::isfinite(st.ddof)) return false;  // the identity, or NumPy's error, in the CPU's words
  if (st.skips_nan()) return st.what == Reduce::Sum || st.what == Reduce::Prod;
  return true;
}

// The kernels' spec of step `st` over `inputs`, mapped by `map` ("": the one input as it is).
ReduceSpec kernel_spec(const plan::ReduceStep& st, std::vector<ReduceInput> inputs, std::string map,
                       std::string helpers) {
  ReduceSpec s;
  s.op = kernel_op(st.what);
  s.value = st.acc;
  s.out = st.out;
  s.ddof = st.ddof;
  // NaN is replaced before the conversion to the accumulator: into an integer
  // dtype= a NaN would convert to 0 first (a nanprod of 0).
  if (st.skips_nan()) {
    const std::string m = map.empty() ? inputs[0].name : map, id = st.what == Reduce::Sum ? "0" : "1";
    map = is_float(st.acc) ? "cj::red::nan_to((cj_val)(" + m + "), (cj_val)" + id + ")"
                           : "(cj_val)cj::red::nan_to((double)(" + m + "), " + id + ".0)";
  }
  s.inputs = std::move(inputs);
  s.map = std::move(map);
  s.helpers = std::move(helpers);
  return s;
}

// How the map's elements are laid out for the kernels: [outer, len, inner]
// when the reduced axes (extent-1 axes aside) are adjacent; otherwise the
// map is written in the order [kept axes, reduced axes] (`order`), [outer, len, 1].
struct Geometry {
  ReduceShape shape;
  std::vector<int> order;  // empty: the map's own order
};

Geometry geometry(const plan::ReduceStep& st) {
  const Shape& s = st.map_shape;
  Geometry g;
  std::vector<int> kept, reduced;
  bool after = false, adjacent = true;
  for (int d = 0; d < s.ndim; ++d) {
    const bool r = std::binary_search(st.axes.begin(), st.axes.end(), d);
    (r ? reduced : kept).push_back(d);
    if (s[d] == 1) continue;
    if (r && after) adjacent = false;
    if (!r && g.shape.len > 1) after = true;
    if (r) g.shape.len *= s[d];
    else (after ? g.shape.inner : g.shape.outer) *= s[d];
  }
  if (adjacent) return g;
  g.order = kept;
  g.order.insert(g.order.end(), reduced.begin(), reduced.end());
  g.shape.outer *= g.shape.inner;
  g.shape.inner = 1;
  return g;
}

bool contiguous(const ArrayView& v) {
  return v.strides == ArrayView::contiguous_strides(v.shape, v.dtype) || v.size() <= 1;
}

// The structure a derived program is made of, as the key it is kept under.
std::string list_key(const char* what, const std::vector<int>& a, const std::vector<int>& b, const std::vector<int>& c) {
  std::string s = what;
  for (const auto* v : {&a, &b, &c}) {
    s += "|";
    for (int x : *v) s += std::to_string(x) + ",";
  }
  return s;
}

// What a buffer the passes make is for (PlanEffects names it in --emit's headers).
struct Buf {
  enum Kind { Output, Result, Map } kind;
  int index;  // Program::outputs slot, or the step
};

// What the passes do to the device, apart from the planning: a call does it
// (RunEffects); precompiling and jitrun --emit only note the kernels it would
// compile (PlanEffects), so both follow the one planning code, GpuReductions.
class Effects {
 public:
  virtual ~Effects() = default;
  // The plan's pass the next effects belong to (plan::describe's numbers); 0: all of them.
  int pass = 0;
  // A new array on the call's device, kept by `owner`.
  virtual ArrayView empty(DType t, const Shape& s, Array& owner, Buf what) = 0;
  virtual void reduce(const ReduceSpec& spec, const ReduceShape& shape, const CUdeviceptr* in, CUdeviceptr out) = 0;
  virtual void normalize_rows(const RowNormSpec& spec, long long rows, long long len, const CUdeviceptr* in,
                              CUdeviceptr out) = 0;
  virtual void copy(const ArrayView& dst, const ArrayView& src) = 0;
  virtual std::vector<Array> call(Call& d, const CallHooks& hooks) = 0;
  // Step `st` reduced by the CPU evaluator's loops from `map` into `out`.
  virtual void reduce_on_host(const ArrayView& map, const plan::ReduceStep& st, const ArrayView& out) = 0;
};

class RunEffects final : public Effects {
 public:
  RunEffects(const Call& c, RunCall run_call) : c_(c), run_call_(run_call) {}
  ArrayView empty(DType t, const Shape& s, Array& owner, Buf) override {
    owner = Array::empty(t, s, c_.where);
    return owner.view();
  }
  void reduce(const ReduceSpec& spec, const ReduceShape& shape, const CUdeviceptr* in, CUdeviceptr out) override {
    kernels().launch(c_.where.id, spec, shape, in, out, workspace(c_.where.id, c_.stream), c_.stream);
  }
  void normalize_rows(const RowNormSpec& spec, long long rows, long long len, const CUdeviceptr* in,
                      CUdeviceptr out) override {
    kernels().normalize_rows(c_.where.id, spec, rows, len, in, out, c_.stream);
  }
  void copy(const ArrayView& dst, const ArrayView& src) override { copy_on_device(dst, src, c_.stream); }
  std::vector<Array> call(Call& d, const CallHooks& hooks) override { return run_call_(d, hooks); }
  void reduce_on_host(const ArrayView& map, const plan::ReduceStep& st, const ArrayView& out) override {
    synchronize(c_.where.id, c_.stream);
    const Array host = Array::copy_of(map, Device::cpu());
    const HostArray r = reduce_host(host.view(), st);
    copy_into(out, r.view());
  }

 private:
  const Call& c_;
  RunCall run_call_;
};

class GpuReductions {
 public:
  GpuReductions(Call& c, const CallHooks& hooks, Effects& fx)
      : c_(c), p_(c.program.program()), hooks_(hooks), fx_(fx) {
    std::vector<Shape> shapes;
    for (std::size_t k = 0; k < p_.inputs.size(); ++k) shapes.push_back(c.inputs[k].shape);
    plan_ = plan::plan_reductions(p_, shapes);
    if (c.shape && plan_.elementwise.size() > 1)
      fail(ErrorCode::Usage, "this program's outputs have different shapes, so it takes no output shape (given {})",
           to_string(*c.shape));
  }

  std::vector<Array> run() {
    made_.resize(p_.outputs.size());
    if (normalize_rows()) return std::move(made_);
    const std::vector<int> direct = direct_outputs();
    for (std::size_t k = 0; k < plan_.reductions.size(); ++k) {
      fx_.pass = static_cast<int>(k) + 1;
      results_.push_back(reduce(static_cast<int>(k), direct[k]));
    }
    for (std::size_t g = 0; g < plan_.elementwise.size(); ++g)
      if (std::find(direct.begin(), direct.end(), plan_.elementwise[g].outputs[0]) == direct.end() ||
          plan_.elementwise[g].outputs.size() != 1) {
        fx_.pass = static_cast<int>(plan_.reductions.size() + g) + 1;
        elementwise(static_cast<int>(g));
      }
    bool any = false;
    for (const Array& a : made_) any = any || a.view().data || a.size() == 0;
    if (!any) made_.clear();
    return std::move(made_);
  }

  // For jitrun -v and --bench: the elements of the largest pass, the passes.
  std::int64_t elements() const {
    std::int64_t n = 0;
    for (const plan::ReduceStep& st : plan_.reductions) n = std::max(n, st.map_shape.size());
    for (const plan::ElementwiseStep& es : plan_.elementwise) n = std::max(n, es.shape.size());
    return n;
  }
  std::size_t reductions() const { return plan_.reductions.size(); }
  std::string passes() const {
    if (one_pass_) return "rows normalised in one pass";
    return std::to_string(plan_.reductions.size()) + " reduction + " + std::to_string(plan_.elementwise.size()) +
           " elementwise passes";
  }

 private:
  const GpuProgram& derived(const std::string& key, int step, bool map) const {
    return c_.program.derived(key, [&] {
      plan::Derived d = map ? plan::derive_map(p_, plan_, step) : plan::derive_elementwise(p_, plan_, step);
      return std::shared_ptr<const Program>(std::move(d.program));
    });
  }

  // Per step, the output its result is (the step's one statement is
  // `out = <the reduction>` with the result's dtype and shape), else -1: the
  // kernel writes that output and no elementwise pass runs for it.
  std::vector<int> direct_outputs() const {
    std::vector<int> d(plan_.reductions.size(), -1);
    if (c_.shape) return d;
    for (const plan::ElementwiseStep& es : plan_.elementwise) {
      if (es.stmts.size() != 1 || es.outputs.size() != 1) continue;
      const Stmt& s = p_.ast.stmts[static_cast<std::size_t>(es.stmts[0])];
      const int j = plan_.step_of(s.expr.get());
      const Var& v = p_.outputs[static_cast<std::size_t>(es.outputs[0])];
      if (j < 0 || s.sym != Sym::Output || s.compound || v.input >= 0) continue;
      const plan::ReduceStep& st = plan_.reductions[static_cast<std::size_t>(j)];
      const auto o = static_cast<std::size_t>(es.outputs[0]);
      const ArrayView& y = c_.outputs[o];
      // A given output the kernel cannot write (or a wrong one) goes the
      // elementwise way, which checks it and says what is wrong.
      if (c_.given[o] && (y.device != c_.where || y.dtype != st.out || y.shape != st.out_shape || !contiguous(y)))
        continue;
      if (v.dtype == st.out && es.shape == st.out_shape) d[static_cast<std::size_t>(j)] = es.outputs[0];
    }
    return d;
  }

  // Whether the program is a row normalisation, `(x - mean(x, axis=-1,
  // keepdims=true)) / std(x, axis=-1, keepdims=true)` and its kin: means,
  // variances and deviations of one contiguous float32/float64 input over
  // its last axis, kept, read by one elementwise statement of the input's
  // shape, with rows that fit on chip. Then it runs as one pass, each row
  // read once and held in registers (ReduceKernels::normalize_rows). Mean
  // and deviation come from the exact two-pass formula on those registers.
  bool normalize_rows() {
    if (plan_.elementwise.size() != 1 || plan_.reductions.empty() || c_.shape) return false;
    const plan::ElementwiseStep& es = plan_.elementwise[0];
    if (es.stmts.size() != 1 || es.outputs.size() != 1) return false;
    const auto o = static_cast<std::size_t>(es.outputs[0]);
    const Var& y = p_.outputs[o];
    int slot = -1;
    double ddof = -1;
    for (const plan::ReduceStep& st : plan_.reductions) {
      const Expr& m = *st.map;
      const bool spread = st.what == Reduce::Var || st.what == Reduce::Std;
      if ((st.what != Reduce::Mean && !spread) || st.nan_ignoring || !st.keepdims || !st.reads.empty()) return false;
      if (m.kind != Expr::Name || m.sym != Sym::Input || (slot >= 0 && m.slot != slot)) return false;
      if (st.in != st.acc || st.out != st.in || (st.in != DType::Float32 && st.in != DType::Float64)) return false;
      if (st.axes.size() != 1 || st.axes[0] != st.map_shape.ndim - 1) return false;
      if (spread && ddof >= 0 && st.ddof != ddof) return false;
      if (spread) ddof = st.ddof;
      slot = m.slot;
    }
    ddof = std::max(ddof, 0.0);
    const ArrayView& x = c_.inputs[static_cast<std::size_t>(slot)];
    if (y.input >= 0 || p_.inputs[static_cast<std::size_t>(slot)].weak || x.device != c_.where || !contiguous(x) ||
        x.shape != es.shape || x.shape.ndim < 1 || ddof != std::floor(ddof))
      return false;
    const std::int64_t len = x.shape[x.shape.ndim - 1], rows = len ? x.size() / len : 0;
    if (rows == 0 || len <= ddof || len > kMaxRowLength * 4 / static_cast<std::int64_t>(dtype_size(x.dtype))) return false;
    if (c_.given[o] && (c_.outputs[o].device != c_.where || c_.outputs[o].dtype != y.dtype ||
                        c_.outputs[o].shape != es.shape || !contiguous(c_.outputs[o])))
      return false;
    const GpuProgram& gp = derived(list_key("elementwise", es.stmts, es.outputs, es.reads), 0, false);
    const Program& d = gp.program();
    if (d.ast.stmts.size() != 1 || d.ast.stmts[0].compound) return false;  // locals: the general way
    FusedMap f = fused_map(d, *d.ast.stmts[0].expr, y.dtype);
    if (f.expr.empty()) return false;
    // The epilogue over the kernel's x, mean, var, std, as the derived
    // statement reads them: the input, and each step's result.
    std::string epi = "[&] { ";
    const std::vector<int> from_of = sources(d);
    for (int k : f.inputs) {
      const Param& q = d.inputs[static_cast<std::size_t>(k)];
      const int from = from_of[static_cast<std::size_t>(k)];
      const Reduce what = from < 0 ? plan_.reductions[static_cast<std::size_t>(-1 - from)].what : Reduce::None;
      const char* v = from == slot ? "x" : what == Reduce::Mean ? "mean" : what == Reduce::Var ? "var" : what == Reduce::Std ? "std" : nullptr;
      if (!v) return false;
      epi += "const cj_val v_" + q.name + " = " + v + "; ";
    }
    epi += "return " + f.expr + "; }()";  // one line: the kernel's header comment quotes it
    RowNormSpec spec;
    spec.inputs = {{"x", x.dtype}};
    spec.value = x.dtype;
    spec.out = y.dtype;
    spec.epilogue = std::move(epi);
    spec.helpers = std::move(f.helpers);
    spec.ddof = static_cast<int>(ddof);
    ArrayView out = c_.given[o] ? c_.outputs[o] : fx_.empty(y.dtype, es.shape, made_[o], {Buf::Output, es.outputs[0]});
    const CUdeviceptr in = reinterpret_cast<CUdeviceptr>(x.data);
    fx_.pass = 0;
    fx_.normalize_rows(spec, rows, len, &in, reinterpret_cast<CUdeviceptr>(out.data));
    one_pass_ = true;
    return true;
  }

  // Where step k's result goes: output `o` (given, or made here), or a new
  // array kept for the passes that read it.
  ArrayView result_array(const plan::ReduceStep& st, int o) {
    const auto u = static_cast<std::size_t>(o);
    if (o >= 0 && c_.given[u]) return c_.outputs[u];
    Array& a = o >= 0 ? made_[u] : owned_.emplace_back();
    return fx_.empty(st.out, st.out_shape, a, o >= 0 ? Buf{Buf::Output, o} : Buf{Buf::Result, plan_.step_of(st.call)});
  }

  // A derived program's call: the caller's operands, the results it reads.
  void bind(Call& d) const {
    d.where = c_.where;
    d.stream = c_.stream;
    d.move_inputs = false;  // the call's operands are on the device already
    const std::vector<int> from = sources(d.program.program());
    for (std::size_t i = 0; i < from.size(); ++i)
      d.inputs[i] = from[i] >= 0 ? c_.inputs[static_cast<std::size_t>(from[i])]
                                 : results_[static_cast<std::size_t>(-1 - from[i])];
  }

  // The array the kernels reduce for step k: an input or an earlier result as
  // it is, when laid out for them; else the map evaluated into a temporary.
  ArrayView map_of(int k, const Geometry& g, Array& tmp) {
    const plan::ReduceStep& st = plan_.reductions[static_cast<std::size_t>(k)];
    const Expr& m = *st.map;
    if (g.order.empty()) {
      if (m.kind == Expr::Name && m.sym == Sym::Input && !p_.inputs[static_cast<std::size_t>(m.slot)].weak) {
        const ArrayView& v = c_.inputs[static_cast<std::size_t>(m.slot)];
        if (v.dtype == st.in && v.device == c_.where && v.shape == st.map_shape && contiguous(v)) return v;
      }
      const int inner = plan_.step_of(&m);
      if (inner >= 0 && results_[static_cast<std::size_t>(inner)].dtype == st.in)
        return results_[static_cast<std::size_t>(inner)];
    }
    ArrayView out;
    if (g.order.empty()) {
      out = fx_.empty(st.in, st.map_shape, tmp, {Buf::Map, k});
    } else {  // written transposed: kept axes first
      Shape ps;
      ps.ndim = st.map_shape.ndim;
      for (int i = 0; i < ps.ndim; ++i) ps[i] = st.map_shape[g.order[static_cast<std::size_t>(i)]];
      out = fx_.empty(st.in, ps, tmp, {Buf::Map, k});
      const Shape pst = ArrayView::contiguous_strides(ps, st.in);
      out.shape = st.map_shape;
      for (int i = 0; i < ps.ndim; ++i) out.strides[g.order[static_cast<std::size_t>(i)]] = pst[i];
    }
    // An input as it is, laid out for the kernels by a copy kernel.
    if (m.kind == Expr::Name && m.sym == Sym::Input && !p_.inputs[static_cast<std::size_t>(m.slot)].weak) {
      const ArrayView& v = c_.inputs[static_cast<std::size_t>(m.slot)];
      if (v.dtype == st.in && v.device == c_.where && v.shape == st.map_shape) {
        fx_.copy(out, v);
        return out;
      }
    }
    const GpuProgram& gp = derived(list_key("map", {k}, st.locals, st.reads), k, true);
    Call d(gp);
    bind(d);
    d.outputs[0] = out;
    d.given[0] = true;
    d.shape = &st.map_shape;
    fx_.call(d, {});
    return out;
  }

  // Step k with its map computed inside the reduction kernel, reading the
  // inputs once (`sum(x*y)`): when the map reads only arrays of its own
  // shape, laid out contiguously on the device. Whether it ran.
  bool reduce_fused(const plan::ReduceStep& st, const Geometry& g, int o, ArrayView& out) {
    const Expr& m = *st.map;
    if (!g.order.empty() || !st.locals.empty() || !st.reads.empty() || m.kind == Expr::Name) return false;
    FusedMap f = fused_map(p_, m, st.in);
    if (f.expr.empty() || f.inputs.empty() || f.inputs.size() > 8) return false;
    std::vector<ReduceInput> ins;
    CUdeviceptr ptrs[8] = {};
    for (int k : f.inputs) {
      const ArrayView& v = c_.inputs[static_cast<std::size_t>(k)];
      if (v.device != c_.where || v.shape != st.map_shape || !contiguous(v)) return false;
      ptrs[ins.size()] = reinterpret_cast<CUdeviceptr>(v.data);
      ins.push_back({"v_" + p_.inputs[static_cast<std::size_t>(k)].name, v.dtype});
    }
    out = result_array(st, o);
    fx_.reduce(kernel_spec(st, std::move(ins), std::move(f.expr), std::move(f.helpers)), g.shape, ptrs,
               reinterpret_cast<CUdeviceptr>(out.data));
    return true;
  }

  // Step k into its result (output `o` when it is one, see direct_outputs).
  ArrayView reduce(int k, int o) {
    const plan::ReduceStep& st = plan_.reductions[static_cast<std::size_t>(k)];
    const Geometry g = geometry(st);
    ArrayView out;
    if (on_kernels(st) && reduce_fused(st, g, o, out)) return out;
    Array tmp;
    const ArrayView map = map_of(k, g, tmp);
    if (!on_kernels(st)) {
      // Reduced on the host by the CPU evaluator's loops: the same results and errors.
      out = result_array(st, o);
      fx_.reduce_on_host(map, st, out);
      return out;
    }
    out = result_array(st, o);
    const CUdeviceptr in = reinterpret_cast<CUdeviceptr>(map.data);
    fx_.reduce(kernel_spec(st, {{"x", st.in}}, "", ""), g.shape, &in, reinterpret_cast<CUdeviceptr>(out.data));
    // The temporary goes when the kernel is done with it: freed now, it could
    // be handed out again (and written) while the kernel still reads it.
    if (tmp.view().data) owned_.push_back(std::move(tmp));
    return out;
  }

  // Elementwise step g into the caller's outputs.
  void elementwise(int g) {
    const plan::ElementwiseStep& es = plan_.elementwise[static_cast<std::size_t>(g)];
    const GpuProgram& gp = derived(list_key("elementwise", es.stmts, es.outputs, es.reads), g, false);
    Call d(gp);
    bind(d);
    for (std::size_t j = 0; j < es.outputs.size(); ++j) {
      const auto o = static_cast<std::size_t>(es.outputs[j]);
      d.outputs[j] = c_.outputs[o];
      d.given[j] = c_.given[o];
    }
    const Shape shape = output_shape(es.shape, c_.shape);
    d.shape = &shape;
    CallHooks h;
    h.wait = hooks_.wait;
    std::vector<Array> part = fx_.call(d, h);
    for (std::size_t j = 0; j < part.size(); ++j)
      if (!d.given[j] && gp.program().outputs[j].input < 0)
        made_[static_cast<std::size_t>(es.outputs[j])] = std::move(part[j]);
  }

  // Where each input of derived program `d` comes from (plan::Derived::inputs):
  // the program's input of that name, or `_r<j>`, step j's result.
  std::vector<int> sources(const Program& d) const {
    std::vector<int> v;
    for (const Param& q : d.inputs) {
      int k = -1;
      for (std::size_t i = 0; i < p_.inputs.size() && k < 0; ++i)
        if (p_.inputs[i].name == q.name) k = static_cast<int>(i);
      if (k < 0 && q.name.rfind("_r", 0) == 0) k = -1 - std::stoi(q.name.substr(2));
      if (k < 0 && q.name.rfind("_r", 0) != 0)
        fail(ErrorCode::Internal, "reduce_call: derived input '{}' is neither an input nor a result", q.name);
      v.push_back(k);
    }
    return v;
  }

  Call& c_;
  const Program& p_;
  const CallHooks& hooks_;
  Effects& fx_;
  plan::ReducePlan plan_;
  bool one_pass_ = false;
  std::vector<ArrayView> results_;  // per step, its result on the device
  std::vector<Array> owned_;        // results that are no output, temporaries
  std::vector<Array> made_;         // per Program::outputs, those the call allocated
};

// The kernels the passes would compile, noted instead of run: buffers get
// 256-byte aligned stand-in addresses (the pool's alignment), never touched.
class PlanEffects final : public Effects {
 public:
  PlanEffects(const Program& p, std::vector<PassKernel>& out) : p_(p), out_(out) {}

  ArrayView fresh(DType t, const Shape& s, Device where, std::string label) {
    ArrayView v;
    v.data = reinterpret_cast<void*>(next_);
    v.dtype = t;
    v.shape = s;
    v.strides = ArrayView::contiguous_strides(s, t);
    v.device = where;
    next_ += (static_cast<std::uintptr_t>(s.size()) * dtype_size(t) + 511) & ~std::uintptr_t{255};
    labels_[reinterpret_cast<std::uintptr_t>(v.data)] = std::move(label);
    return v;
  }
  ArrayView empty(DType t, const Shape& s, Array&, Buf what) override {
    const std::string step = std::to_string(what.index + 1);
    return fresh(t, s, Device::cuda(0),
                 what.kind == Buf::Output ? "output " + p_.outputs[static_cast<std::size_t>(what.index)].name
                 : what.kind == Buf::Result ? "result of pass " + step
                                            : "map of pass " + step + " (temporary)");
  }
  void reduce(const ReduceSpec& spec, const ReduceShape& shape, const CUdeviceptr* in, CUdeviceptr out) override {
    ReduceKernels::Kernel k = ReduceKernels::kernel(spec, shape, in);
    if (k.name.empty()) return;
    PassKernel& pk = add(spec.map.empty() ? "reduction" : "reduction, map fused", labels(in, spec.inputs.size()),
                         label(out));
    pk.name = std::move(k.name);
    pk.what = std::move(k.what);
    pk.source = std::move(k.source);
  }
  void normalize_rows(const RowNormSpec& spec, long long rows, long long len, const CUdeviceptr* in,
                      CUdeviceptr out) override {
    ReduceKernels::Kernel k = ReduceKernels::kernel(spec, rows, len, in, out);
    if (k.name.empty()) return;
    PassKernel& pk = add("row normalisation", labels(in, spec.inputs.size()), label(out));
    pk.name = std::move(k.name);
    pk.what = std::move(k.what);
    pk.source = std::move(k.source);
  }
  void copy(const ArrayView& dst, const ArrayView& src) override {
    const GpuProgram& g = copy_program(src.dtype);
    PassKernel& pk = add("copy", label(src), label(dst) + ", in the order [kept axes, reduced axes]");
    pk.program = &g;
    pk.layout = g.plan({operand(src)}, {operand(dst)});
  }
  // What run_call and the launcher do with a derived program's call (no
  // reductions, operands on the device): outputs given, the input itself
  // when updated in place (staged in a new array when the program can
  // fail), else new arrays of the outputs' shape; then the one planning step.
  std::vector<Array> call(Call& d, const CallHooks&) override {
    const Program& p = d.program.program();
    bool any_inout = false;
    for (const Var& v : p.outputs) any_inout = any_inout || v.input >= 0;
    Shape shape = output_shape(broadcast_shape(p, d.inputs.data()), d.shape);
    if (!d.shape)
      for (std::size_t o = 0; o < p.outputs.size(); ++o)
        if (p.outputs[o].input < 0 && d.given[o]) shape = d.outputs[o].shape;
    if (shape.size() == 0) return {};
    std::vector<OperandView> iv, ov;
    std::string reads, writes;
    for (std::size_t k = 0; k < p.inputs.size(); ++k) {
      const ArrayView& v = d.inputs[k];
      iv.push_back(operand(v));
      if (p.inputs[k].weak || iv.back().host_value) continue;
      reads += (reads.empty() ? "" : ", ") + label(v);
    }
    for (std::size_t o = 0; o < p.outputs.size(); ++o) {
      const Var& y = p.outputs[o];
      ArrayView v = y.input >= 0 && !(any_inout && p.can_fail) ? d.inputs[static_cast<std::size_t>(y.input)]
                    : d.given[o]                              ? d.outputs[o]
                                                              : fresh(y.dtype, shape, d.where, "output " + y.name);
      ov.push_back(operand(v));
      writes += (writes.empty() ? "" : ", ") + (y.input >= 0 ? "input " + y.name + " in place" : label(v));
    }
    PassKernel& pk = add(pass > static_cast<int>(reductions_) ? "elementwise" : "map", reads, writes);
    pk.program = &d.program;
    pk.layout = d.program.plan(iv, ov);
    return {};
  }
  void reduce_on_host(const ArrayView& map, const plan::ReduceStep&, const ArrayView& out) override {
    add("", label(map), label(out)).note =
        "reduced on the host by the CPU evaluator's loops (complex values, NaN-ignoring min/max/arg/mean/var/std, "
        "or no elements): its map is copied there, its result back";
  }

  std::size_t reductions_ = 0;

 private:
  static OperandView operand(const ArrayView& v) {
    OperandView o;
    o.dtype = v.dtype;
    o.shape = v.shape;
    o.strides = v.strides;
    o.host_value = v.device.kind == Device::CPU;
    o.address = o.host_value ? 0 : reinterpret_cast<std::uintptr_t>(v.data);
    return o;
  }
  std::string label(CUdeviceptr a) const {
    auto it = labels_.find(static_cast<std::uintptr_t>(a));
    return it == labels_.end() ? "?" : it->second;
  }
  std::string label(const ArrayView& v) const { return label(reinterpret_cast<CUdeviceptr>(v.data)); }
  std::string labels(const CUdeviceptr* in, std::size_t n) const {
    std::string s;
    for (std::size_t i = 0; i < n; ++i) s += (i ? ", " : "") + label(in[i]);
    return s;
  }
  PassKernel& add(std::string role, std::string reads, std::string writes) {
    PassKernel& k = out_.emplace_back();
    k.pass = pass;
    k.role = std::move(role);
    k.reads = std::move(reads);
    k.writes = std::move(writes);
    return k;
  }

  const Program& p_;
  std::vector<PassKernel>& out_;
  std::uintptr_t next_ = std::uintptr_t{1} << 36;
  std::map<std::uintptr_t, std::string> labels_;
};

}  // namespace

std::vector<PassKernel> reduction_kernels(const GpuProgram& g, const std::vector<Shape>& shapes,
                                          const std::vector<bool>& host_value, const Shape* shape) {
  const Program& p = g.program();
  if (!p.has_reductions) fail(ErrorCode::Internal, "reduction_kernels: the program has no reductions");
  if (shapes.size() != p.inputs.size())
    fail(ErrorCode::Internal, "reduction_kernels: {} shapes for {} inputs", shapes.size(), p.inputs.size());
  std::vector<PassKernel> out;
  PlanEffects fx(p, out);
  Call c(g);
  c.where = Device::cuda(0);
  c.shape = shape;
  c.move_inputs = false;
  for (std::size_t k = 0; k < p.inputs.size(); ++k) {
    const Param& q = p.inputs[k];
    const bool host = q.weak || (k < host_value.size() && host_value[k]);
    c.inputs[k] = fx.fresh(q.dtype, host ? Shape{} : shapes[k], host ? Device::cpu() : c.where, "input " + q.name);
  }
  CallHooks hooks;
  GpuReductions r(c, hooks, fx);
  fx.reductions_ = r.reductions();
  r.run();
  return out;
}

std::string reduction_recipe(const GpuProgram& g, const ArrayView* inputs, int arch) {
  const Program& p = g.program();
  std::string shapes;
  for (std::size_t k = 0; k < p.inputs.size(); ++k) {
    const Param& q = p.inputs[k];
    if (q.weak) continue;
    const ArrayView& v = inputs[k];
    std::string s;
    if (v.device.kind == Device::CPU && v.shape.ndim == 0) {
      s = "\"scalar\"";
    } else {
      for (int d = 0; d < v.shape.ndim; ++d) s += (d ? ", " : "") + std::to_string(v.shape[d]);
      s = "[" + s + "]";
    }
    shapes += (shapes.empty() ? "" : ", ") + q.name + " = " + s;
  }
  return "[[kernel]]\n" + g.recipe_fields() + "shapes = [{" + (shapes.empty() ? "" : " " + shapes + " ") +
         "}]\narch = [\"sm_" + std::to_string(arch) + "\"]\n";
}

std::vector<Array> run_reductions_on_gpu(Call& c, const CallHooks& hooks, CallStats& st, RunCall run_call) {
  const auto t0 = std::chrono::steady_clock::now();
  RunEffects fx(c, run_call);
  GpuReductions r(c, hooks, fx);
  std::vector<Array> made;
  {
    // Every kernel the passes compile carries (and records) the program's whole entry.
    RecordGroup group([&] { return reduction_recipe(c.program, c.inputs.data(), cap_arch(device_info(c.where.id).arch())); });
    made = r.run();
  }
  // The temporaries go back to the pool in the legacy stream's order, which a
  // caller's own stream is not part of: its passes finish first.
  if (c.stream) synchronize(c.where.id, c.stream);
  st.launch.n = r.elements();
  st.launch.layout = r.passes();
  if (hooks.wait || hooks.stats || hooks.launched) {
    synchronize(c.where.id, c.stream);
    st.run_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  }
  if (hooks.launched) {  // the outputs it made, as the elementwise launch's
    for (std::size_t o = 0; o < made.size(); ++o)
      if (made[o].view().data) c.outputs[o] = made[o].view();
    hooks.launched(c.inputs.data(), c.outputs.data());
  }
  return made;
}

}  // namespace cujit

#include "cujit/multi_gpu.hpp"
#include "plan/shapes.hpp"

#include <algorithm>
#include <deque>
#include <exception>
#include <functional>
#include <optional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

#include "api/call.hpp"
#include "api/programs.hpp"
#include "plan/split_plan.hpp"
#include "plan/split_reduce.hpp"
#include "cpu/split_combine.hpp"
#include "core/fail.hpp"
#include "core/driver.hpp"
#include "gpu/launch.hpp"
#include "plan/layout.hpp"
#include "lang/check.hpp"
#include "core/names.hpp"

namespace cujit {

namespace {

// Rows [begin, end) of a view, without a copy.
ArrayView rows_of(const ArrayView& v, std::int64_t begin, std::int64_t end) {
  ArrayView s = v;
  s.data = static_cast<char*>(v.data) + begin * v.strides[0];
  s.shape[0] = end - begin;
  return s;
}


// Streams kept across calls, per device. A call leases one per slice and
// gives it back when its slices are done, so a job run again and again makes
// no stream after the first call, and concurrent calls never share one
// (which would make one wait for the other's slices). Kept for the process:
// destroyed at exit would race the driver's own teardown, and a stream holds
// no memory worth returning.
class StreamPool {
 public:
  static StreamPool& instance() {
    static auto* pool = new StreamPool;
    return *pool;
  }
  std::unique_ptr<Stream> take(int device) {
    {
      std::lock_guard<std::mutex> lock(mu_);
      auto& free = free_[device];
      if (!free.empty()) {
        std::unique_ptr<Stream> s = std::move(free.back());
        free.pop_back();
        return s;
      }
    }
    return std::make_unique<Stream>(device);
  }
  // Only a stream whose work finished cleanly comes back.
  void give(std::unique_ptr<Stream> s) {
    std::lock_guard<std::mutex> lock(mu_);
    auto& free = free_[s->device()];
    if (free.size() < 64) free.push_back(std::move(s));
  }

 private:
  std::mutex mu_;
  std::map<int, std::vector<std::unique_ptr<Stream>>> free_;
};

// One split job, checked and planned, nothing copied or launched yet.
struct Job {
  std::shared_ptr<const GpuProgram> gpu;
  std::vector<ArrayView> views;  // per input; a distributed one: its first piece's, with the whole shape (for shapes only)
  // Elementwise: the outputs' shape. With reductions: the split inputs' (only
  // its dimensions and axis 0, the rows, count), 0-d when not split.
  Shape shape;
  std::vector<SplitSlice> plan;
  bool split = true;             // false: one slice reading every input whole
  bool positional = false;       // not split as it uses `i` or `n`, or indexes an input
  std::vector<Shape> out_shapes;  // per output
  // Per output: cut with the slices' rows; else one piece, whole, that the
  // first slice writes (an output whose shape has no split axis: a
  // reduction over it, or one of whole inputs only).
  std::vector<bool> out_rows;
  std::optional<plan::SplitReduce> red;  // a program with reductions

  // Output o's pieces: (device, begin, end, shape), in order.
  std::vector<std::tuple<int, std::int64_t, std::int64_t, Shape>> pieces(std::size_t o) const {
    const Shape& s = out_shapes[o];
    std::vector<std::tuple<int, std::int64_t, std::int64_t, Shape>> v;
    if (!out_rows[o]) {
      v.emplace_back(plan[0].device, 0, s.ndim == 0 ? 1 : s[0], s);
      return v;
    }
    for (const SplitSlice& sl : plan) {
      Shape ps = s;
      ps[0] = sl.end - sl.begin;
      v.emplace_back(sl.device, sl.begin, sl.end, ps);
    }
    return v;
  }
};

// The shapes of a program with reductions, split or not (plan/split_reduce.hpp).
void plan_reductions_of(const char* who, Job& job, const std::vector<std::optional<Shape>>& in_shapes,
                        const std::vector<int>& devices) {
  const Program& p = job.gpu->program();
  // Planned for one device too, so that what a split refuses is refused on
  // a machine of one GPU as on one of eight; one device then runs it whole.
  if (job.split) {
    job.red = plan::plan_split_reduce(who, p, in_shapes);
    job.split = job.red->split && devices.size() > 1;
  }
  if (!job.split) {
    std::vector<Shape> real;
    for (std::size_t k = 0; k < in_shapes.size(); ++k)
      real.push_back(in_shapes[k] && !p.inputs[k].weak && !p.inputs[k].raw ? *in_shapes[k] : Shape{});
    job.red.reset();
    job.out_shapes = plan::plan_reductions(p, real).output_shapes;
    job.out_rows.assign(p.outputs.size(), false);
    job.shape = Shape{};
    job.plan = plan_split(job.shape, in_shapes, {devices[0]});
    return;
  }
  job.out_shapes = job.red->plan.output_shapes;
  job.out_rows = job.red->output_rows;
  job.shape = Shape{};
  job.shape.ndim = job.red->ndim;
  for (int d = 0; d < job.shape.ndim; ++d) job.shape[d] = 1;
  job.shape[0] = job.red->rows;
  job.plan = plan_split(job.shape, in_shapes, devices);
}

Job prepare(const char* who, std::string_view source, const std::vector<NamedArg>& inputs,
            const std::vector<SplitInput>& distributed, const std::vector<int>& devices, const EvaluateOptions& options,
            const std::string& kernel_name) {
  for (const NamedArg& a : inputs) check_name(a.name, "input");
  for (const SplitInput& a : distributed) {
    check_name(a.name, "input");
    if (a.array.pieces.empty()) fail(ErrorCode::Usage, "distributed input '{}' has no pieces", a.name);
  }
  for (const auto& d : options.output_dtypes) check_name(d.first, "output");

  Job job;
  ProgramRequest req;
  req.source = source;
  req.infer_raw = true;  // the inputs the program indexes are raw parameters, as in evaluate()
  for (const NamedArg& a : inputs) {
    req.params.push_back(Param{a.name, a.value.view().dtype, a.value.is_weak(), false});
    job.views.push_back(a.value.view());
  }
  for (const SplitInput& a : distributed) {
    req.params.push_back(Param{a.name, a.array.dtype, false, false});
    ArrayView v = a.array.pieces[0].array.view();
    v.shape = a.array.shape;
    v.strides = ArrayView::contiguous_strides(v.shape, v.dtype);
    job.views.push_back(v);
  }
  for (const auto& [name, t] : options.output_dtypes) req.outputs.push_back(OutputDecl{name, t});
  req.gpu.fast_math = options.fast_math;
  req.gpu.kernel_name = kernel_name;
  job.gpu = checked_program(req);
  const std::vector<Param>& params = job.gpu->program().inputs;
  bool any_raw = false;
  for (const Param& q : params) any_raw = any_raw || q.raw;
  const Program& p = job.gpu->program();
  // A split run writes other arrays than its inputs: it has no way yet to
  // update the caller's array in place (docs/language.md, "In-place updates").
  for (const Var& v : p.outputs)
    if (v.input >= 0)
      fail(ErrorCode::Usage,
           "{}: the program updates input '{}' in place, which a run split over GPUs does not do yet; "
           "run it on one device (evaluate(), jitrun --device N)",
           who, v.name);
  // Outputs of several shapes have no one shape to be broadcast to.
  if (p.has_reductions && options.shape)
    fail(ErrorCode::Usage,
         "{}: a program with reductions takes no output shape in a split run (EvaluateOptions::shape, jitrun "
         "--shape); leave it unset, or run it on one GPU (evaluate(), jitrun --device N)",
         who);

  // Position-dependent programs run whole on the first device: a slice's
  // `i` would restart at 0, and an indexed input may be read anywhere.
  job.split = !p.uses_index && !any_raw;
  job.positional = !job.split;
  std::vector<std::optional<Shape>> in_shapes;
  for (std::size_t k = 0; k < job.views.size(); ++k) {
    const bool by_value = params[k].weak || (job.views[k].device.kind == Device::CPU && job.views[k].shape.ndim == 0);
    if (by_value && params[k].raw) fail(ErrorCode::Usage, "raw parameter '{}' needs an array, not a scalar", params[k].name);
    in_shapes.push_back(by_value ? std::nullopt : std::optional<Shape>(job.views[k].shape));
  }
  if (p.has_reductions) {
    plan_reductions_of(who, job, in_shapes, devices);
    return job;
  }
  // The shape as evaluate() finds it: with no array input to give one, a
  // raw input's (so `out = x[n - 1 - i]` reverses x).
  const std::optional<Shape> given = implied_shape(p, job.views.data(), options.shape);
  job.shape = output_shape(broadcast_shape(p, job.views.data()), given ? &*given : nullptr);
  job.plan = plan_split(job.shape, in_shapes, job.split ? devices : std::vector<int>(devices.begin(), devices.begin() + 1));
  job.out_shapes.assign(p.outputs.size(), job.shape);
  job.out_rows.assign(p.outputs.size(), job.shape.ndim > 0);
  return job;
}

// Slice j's outputs, called just before its launch: out[o] is written by
// that slice where given[o] (an output cut with the slices, or a whole one on
// the first slice). Made by the call for evaluate_split, so allocating the
// next slice's outputs overlaps the kernels already queued.
using OutputsOf = std::function<void(std::size_t j, std::vector<ArrayView>& out, std::vector<bool>& given)>;

// The inputs of each slice on its device: rows or whole, in place where they
// are there already, else copied (and kept until the job is done).
class SliceInputs {
 public:
  SliceInputs(const Job& job, const std::vector<NamedArg>& inputs, const std::vector<SplitInput>& distributed)
      : job_(job), inputs_(inputs), distributed_(distributed), gathered_(distributed.size()), of_(job.plan.size()) {}

  const std::vector<ArrayView>& of(std::size_t j) {
    if (!of_[j]) of_[j] = make(j);
    return *of_[j];
  }

 private:
  // Whole inputs gathered to the host, made when first needed.
  const Array& whole(std::size_t j) {
    if (!gathered_[j]) gathered_[j] = distributed_[j].array.gather();
    return gathered_[j];
  }
  // Rows [b, e) of input k on `dev`: in place when they are there already.
  ArrayView rows_on(std::size_t k, std::int64_t b, std::int64_t e, const Device& dev) {
    if (k < inputs_.size()) {
      ArrayView v = rows_of(job_.views[k], b, e);
      if (v.device == dev) return v;
      copies_.push_back(Array::copy_of(v, dev));
      return copies_.back().view();
    }
    const std::size_t j = k - inputs_.size();
    for (const ArrayPiece& piece : distributed_[j].array.pieces)
      if (piece.device == dev.id && piece.begin <= b && e <= piece.end) return rows_of(piece.array.view(), b - piece.begin, e - piece.begin);
    copies_.push_back(Array::copy_of(rows_of(whole(j).view(), b, e), dev));
    return copies_.back().view();
  }
  std::vector<ArrayView> make(std::size_t j) {
    const std::vector<ArrayView>& views = job_.views;
    const SplitSlice& s = job_.plan[j];
    const Device dev = Device::cuda(s.device);
    std::vector<ArrayView> in(views.size());
    for (std::size_t k = 0; k < views.size(); ++k) {
      const InputCut& c = s.inputs[k];
      if (c.kind == InputCut::Value) {
        in[k] = views[k];
      } else if (c.kind == InputCut::Rows) {
        in[k] = rows_on(k, c.begin, c.end, dev);
      } else if (k < inputs_.size() && views[k].device == dev) {
        in[k] = views[k];
      } else {
        auto [it, fresh] = whole_on_.try_emplace({k, s.device});
        if (fresh) {
          if (k >= inputs_.size() && views[k].shape.ndim > 0) {
            it->second = rows_on(k, 0, views[k].shape[0], dev);  // a piece there may hold it all
          } else {
            copies_.push_back(Array::copy_of(k < inputs_.size() ? views[k] : whole(k - inputs_.size()).view(), dev));
            it->second = copies_.back().view();
          }
        }
        in[k] = it->second;
      }
    }
    return in;
  }

  const Job& job_;
  const std::vector<NamedArg>& inputs_;
  const std::vector<SplitInput>& distributed_;
  std::vector<Array> gathered_;
  std::deque<Array> copies_;                                   // inputs copied for a slice, alive until the end
  std::map<std::pair<std::size_t, int>, ArrayView> whole_on_;  // (input, device) -> its whole copy there
  std::vector<std::optional<std::vector<ArrayView>>> of_;
};

// A leased stream per slice. wait() waits for all; a job that fails waits
// for what it queued (other slices still read and write its arrays) and
// keeps the streams out of the pool (one may hold a failed launch's state).
class SliceStreams {
 public:
  explicit SliceStreams(const Job& job) {
    for (const SplitSlice& s : job.plan) streams_.push_back(StreamPool::instance().take(s.device));
  }
  SliceStreams(const SliceStreams&) = delete;
  SliceStreams& operator=(const SliceStreams&) = delete;
  ~SliceStreams() {
    if (!done_) drain();
  }
  // After a failure: waits for what was queued, whatever its state.
  void drain() const {
    for (const auto& st : streams_) {
      try {
        st->synchronize();
      } catch (...) {
      }
    }
  }
  CUstream get(std::size_t j) const { return streams_[j]->get(); }
  void wait() const {
    for (const auto& st : streams_) st->synchronize();
  }
  // The job succeeded: the streams go back to the pool.
  void finish() {
    wait();
    done_ = true;
    for (auto& st : streams_) StreamPool::instance().give(std::move(st));
  }

 private:
  std::vector<std::unique_ptr<Stream>> streams_;
  bool done_ = false;
};

// A program that reduces over the split axis, pass by pass
// (plan/split_reduce.hpp): each Across or Whole step's map and partials on
// the slices, the partials combined on the host in slice order, then the
// elementwise steps with the combined results as whole inputs.
class AcrossRun {
 public:
  AcrossRun(const Job& job, SliceInputs& in, SliceStreams& streams)
      : job_(job), p_(job.gpu->program()), red_(*job.red), in_(in), streams_(streams),
        combined_(red_.plan.reductions.size()), rows_(red_.plan.reductions.size()) {}

  void run(const OutputsOf& outputs_of) {
    try {
      passes(outputs_of);
    } catch (...) {
      streams_.drain();  // the passes' temporaries go when this returns: nothing may still use them
      throw;
    }
  }

 private:
  void passes(const OutputsOf& outputs_of) {
    for (std::size_t k = 0; k < red_.plan.reductions.size(); ++k) step(static_cast<int>(k));
    std::vector<Array> keep;
    std::vector<std::vector<ArrayView>> outs(job_.plan.size());
    std::vector<std::vector<bool>> given(job_.plan.size());
    for (std::size_t g = 0; g < red_.plan.elementwise.size(); ++g) {
      const plan::ElementwiseStep& es = red_.plan.elementwise[g];
      const GpuProgram& gp = job_.gpu->derived("split|elementwise|" + std::to_string(g), [&] {
        return std::shared_ptr<const Program>(plan::derive_elementwise(p_, red_.plan, static_cast<int>(g)).program);
      });
      const std::size_t slices = red_.elementwise_rows[g] ? job_.plan.size() : 1;
      for (std::size_t j = 0; j < slices; ++j) {
        if (outs[j].empty()) outputs_of(j, outs[j], given[j]);
        Call c(gp);
        bind(c, j);
        Shape shape = es.shape;
        if (red_.elementwise_rows[g]) shape[0] = job_.plan[j].end - job_.plan[j].begin;
        c.shape = &shape;
        for (std::size_t q = 0; q < es.outputs.size(); ++q) {
          const auto o = static_cast<std::size_t>(es.outputs[q]);
          if (!given[j][o])
            fail(ErrorCode::Internal, "split run: slice {} has no piece of output '{}'", j, p_.outputs[o].name);
          c.outputs[q] = outs[j][o];
          c.given[q] = true;
        }
        for (Array& a : run_call(c)) keep.push_back(std::move(a));
      }
    }
    streams_.wait();
  }

  // A derived program's inputs on slice j: the program's (by name), and the
  // combined results `_r<k>` on the slice's device.
  void bind(Call& c, std::size_t j) {
    const SplitSlice& s = job_.plan[j];
    c.where = Device::cuda(s.device);
    c.stream = streams_.get(j);
    c.move_inputs = false;
    const std::vector<ArrayView>& in = in_.of(j);
    const Program& d = c.program.program();
    for (std::size_t i = 0; i < d.inputs.size(); ++i) {
      const std::string& name = d.inputs[i].name;
      int k = -1;
      for (std::size_t q = 0; q < p_.inputs.size() && k < 0; ++q)
        if (p_.inputs[q].name == name) k = static_cast<int>(q);
      if (k >= 0) {
        c.inputs[i] = in[static_cast<std::size_t>(k)];
      } else if (plan::is_derived_name(name) && name != "_map") {
        const int step = std::stoi(name.substr(2));
        const auto u = static_cast<std::size_t>(step);
        c.inputs[i] = red_.steps[u] == plan::StepCut::Rows ? rows_[u].at(j).view() : result_on(step, s.device);
      } else {
        fail(ErrorCode::Internal, "split run: derived input '{}' is neither an input nor a result", name);
      }
    }
  }

  ArrayView result_on(int k, int device) {
    auto [it, fresh] = uploaded_.try_emplace({k, device});
    if (fresh) it->second = Array::copy_of(combined_[static_cast<std::size_t>(k)].view(), Device::cuda(device));
    return it->second.view();
  }

  // Step k's map on slice j, of shape `shape`: an input as it is, else its
  // derived program run into `tmp`.
  ArrayView map_on(int k, std::size_t j, const Shape& shape, Array& tmp) {
    const plan::ReduceStep& st = red_.plan.reductions[static_cast<std::size_t>(k)];
    const Expr& m = *st.map;
    if (m.kind == Expr::Name && m.sym == Sym::Input && !p_.inputs[static_cast<std::size_t>(m.slot)].weak) {
      const ArrayView& v = in_.of(j)[static_cast<std::size_t>(m.slot)];
      if (v.dtype == st.in && v.shape == shape) return v;
    }
    const GpuProgram& gp = job_.gpu->derived("split|map|" + std::to_string(k), [&] {
      return std::shared_ptr<const Program>(plan::derive_map(p_, red_.plan, k).program);
    });
    Call c(gp);
    bind(c, j);
    tmp = Array::empty(st.in, shape, c.where);
    c.outputs[0] = tmp.view();
    c.given[0] = true;
    c.shape = &shape;
    run_call(c);
    return tmp.view();
  }

  // Rows step k on every slice, its result kept on the slice's device
  // (queued: the passes that read it follow on the slice's stream).
  void rows_step(int k) {
    const plan::ReduceStep& st = red_.plan.reductions[static_cast<std::size_t>(k)];
    ProgramRequest req;
    const std::string source = plan::step_source(st);
    req.source = source;
    req.params.push_back(Param{"m", st.in, false, false});
    const std::shared_ptr<const GpuProgram> prog = checked_program(req);
    for (std::size_t j = 0; j < job_.plan.size(); ++j) {
      const SplitSlice& s = job_.plan[j];
      Shape shape = st.map_shape;
      shape[0] = s.end - s.begin;
      Array& map = temps_.emplace_back();
      Call c(*prog);
      c.where = Device::cuda(s.device);
      c.stream = streams_.get(j);
      c.move_inputs = false;
      c.inputs[0] = map_on(k, j, shape, map);
      std::vector<Array> r = run_call(c);
      rows_[static_cast<std::size_t>(k)].push_back(std::move(r.at(0)));
    }
  }

  void step(int k) {
    if (red_.steps[static_cast<std::size_t>(k)] == plan::StepCut::Rows) return rows_step(k);
    const plan::ReduceStep& st = red_.plan.reductions[static_cast<std::size_t>(k)];
    const bool across = red_.steps[static_cast<std::size_t>(k)] == plan::StepCut::Across;
    ProgramRequest req;
    const std::string source = plan::partial_source(st);
    req.source = source;
    req.params.push_back(Param{"m", st.in, false, false});
    const std::shared_ptr<const GpuProgram> partial = checked_program(req);
    const std::size_t slices = across ? job_.plan.size() : 1;
    std::vector<Array> maps(slices);
    std::vector<std::vector<Array>> parts(slices);
    for (std::size_t j = 0; j < slices; ++j) {
      const SplitSlice& s = job_.plan[j];
      Shape shape = st.map_shape;
      if (across) shape[0] = s.end - s.begin;
      const ArrayView map = map_on(k, j, shape, maps[j]);
      Call c(*partial);
      c.where = Device::cuda(s.device);
      c.stream = streams_.get(j);
      c.move_inputs = false;
      c.inputs[0] = map;
      parts[j] = run_call(c);
    }
    streams_.wait();
    std::vector<std::vector<Array>> host(slices);
    std::vector<SlicePartials> sp(slices);
    for (std::size_t j = 0; j < slices; ++j) {
      const SplitSlice& s = job_.plan[j];
      for (const Array& a : parts[j]) {
        host[j].push_back(a.to_host());
        sp[j].values.push_back(host[j].back().view());
      }
      sp[j].count = across ? plan::partial_count(st, red_.rows, s.begin, s.end) : st.count;
      sp[j].offset = across ? plan::partial_offset(st, red_.rows, s.begin) : 0;
    }
    combined_[static_cast<std::size_t>(k)] = Array(combine_partials(st, sp));
  }

  const Job& job_;
  const Program& p_;
  const plan::SplitReduce& red_;
  SliceInputs& in_;
  SliceStreams& streams_;
  std::vector<Array> combined_;                    // per step: its result in host memory (Across and Whole steps)
  std::vector<std::vector<Array>> rows_;           // per step: each slice's result on its device (Rows steps)
  std::deque<Array> temps_;                        // maps of Rows steps, until the job is done
  std::map<std::pair<int, int>, Array> uploaded_;  // (step, device) -> its result there
};

// Queues every slice of `job` on a leased stream of its device, then waits
// for all.
void run(const Job& job, const std::vector<NamedArg>& inputs, const std::vector<SplitInput>& distributed,
         const OutputsOf& outputs_of) {
  SliceInputs in(job, inputs, distributed);
  std::vector<Array> keep;  // outputs a slice makes and no one keeps (a whole one on a later slice)
  SliceStreams streams(job);
  if (job.red && job.red->across()) {
    AcrossRun(job, in, streams).run(outputs_of);
    streams.finish();
    return;
  }
  for (std::size_t j = 0; j < job.plan.size(); ++j) {
    const SplitSlice& s = job.plan[j];
    const std::vector<ArrayView>& slice_in = in.of(j);
    std::vector<ArrayView> out;
    std::vector<bool> given;
    outputs_of(j, out, given);
    // The slice is a call of its own on its device, its outputs given.
    Call call(*job.gpu);
    call.where = Device::cuda(s.device);
    call.stream = streams.get(j);
    call.move_inputs = false;  // SliceInputs put each slice's inputs there
    for (std::size_t k = 0; k < slice_in.size(); ++k) call.inputs[k] = slice_in[k];
    for (std::size_t o = 0; o < out.size(); ++o) call.outputs[o] = out[o], call.given[o] = given[o];
    for (Array& a : run_call(call)) keep.push_back(std::move(a));
  }
  streams.finish();
}

std::string cut_text(const std::vector<std::tuple<int, std::int64_t, std::int64_t>>& cut) {
  std::string t;
  for (const auto& [device, b, e] : cut) t += fmt::format("{}[{}, {}) on GPU {}", t.empty() ? "" : ", ", b, e, device);
  return t.empty() ? "no pieces" : t;
}

std::string array_text(const Array& a) {
  if (!a) return "no array";
  return fmt::format("{} of shape {} {}", dtype_name(a.dtype()), to_string(a.shape()),
                     a.device().kind == Device::CPU ? std::string("in host memory") : fmt::format("on GPU {}", a.device().id));
}

// Why the job cuts output o as it does, for check_outputs' message.
std::string why_cut(const Job& job, std::size_t o, const std::string& device_list, const std::string& cut_by) {
  if (!job.split && job.positional)
    return " (the program is not split: it uses `i` or `n`, or indexes an input, so it runs whole on one GPU)";
  if (!job.split) return " (the program runs whole on one GPU: one device, or fewer than 2 rows to split)";
  if (!job.out_rows[o]) return " (its shape has no split axis: it comes whole from the first GPU)";
  return fmt::format(" (over GPUs {{{}}}, where output '{}' has its pieces)", device_list, cut_by);
}

// evaluate_split_into's outputs against what `job` writes, before anything
// is copied or launched: Usage errors that say how to make matching ones.
void check_outputs(const Job& job, const std::vector<SplitArray>& outputs, const std::vector<int>& devices,
                   std::size_t devices_from, const std::vector<NamedArg>& inputs,
                   const std::vector<SplitInput>& distributed) {
  const Program& p = job.gpu->program();
  std::string names;
  for (const Var& v : p.outputs) names += fmt::format("{}'{}'", names.empty() ? "" : ", ", v.name);
  if (outputs.size() != p.outputs.size())
    fail(ErrorCode::Usage,
         "evaluate_split_into: the program makes {} output(s) ({}), but {} were given; pass one SplitArray per output, "
         "in that order",
         p.outputs.size(), names, outputs.size());
  std::string device_list;
  for (int d : devices) device_list += fmt::format("{}{}", device_list.empty() ? "" : ",", d);
  std::vector<SplitOperand> written, read;
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    const SplitArray& a = outputs[o];
    const Var& v = p.outputs[o];
    if (!a.name.empty() && a.name != v.name)
      fail(ErrorCode::Usage,
           "evaluate_split_into: output {} is named '{}', but the program's output {} is '{}'; pass the outputs in the "
           "program's order ({}), or leave the name empty",
           o, a.name, o, v.name, names);
    const Shape& shape = job.out_shapes[o];
    if (a.dtype != v.dtype || a.shape != shape)
      fail(ErrorCode::Usage,
           "evaluate_split_into: output '{}' is {} of shape {}, but the program makes {} of shape {}; make it with "
           "split_empty({}, {}, devices)",
           v.name, dtype_name(a.dtype), to_string(a.shape), dtype_name(v.dtype), to_string(shape), dtype_name(v.dtype),
           to_string(shape));
    std::vector<std::tuple<int, std::int64_t, std::int64_t>> want;
    for (const auto& [device, b, e, ps] : job.pieces(o)) want.emplace_back(device, b, e);
    std::vector<std::tuple<int, std::int64_t, std::int64_t>> got;
    for (const ArrayPiece& piece : a.pieces) got.emplace_back(piece.device, piece.begin, piece.end);
    if (got != want)
      fail(ErrorCode::Usage,
           "evaluate_split_into: output '{}' is cut as {}, but the job cuts it as {}{}; make every output with "
           "split_empty(dtype, shape, {{{}}})",
           v.name, cut_text(got), cut_text(want), why_cut(job, o, device_list, p.outputs[devices_from].name),
           job.split && job.out_rows[o] ? device_list : std::to_string(devices[0]));
  }
  // Then what the pieces hold, once every output is known to be cut right.
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    const SplitArray& a = outputs[o];
    const Var& v = p.outputs[o];
    const auto want = job.pieces(o);
    for (std::size_t j = 0; j < a.pieces.size(); ++j) {
      const ArrayPiece& piece = a.pieces[j];
      const Array& arr = piece.array;
      const Shape& ps = std::get<3>(want[j]);
      if (!arr || arr.device() != Device::cuda(piece.device) || arr.dtype() != v.dtype || arr.shape() != ps)
        fail(ErrorCode::Usage,
             "evaluate_split_into: output '{}': the piece of rows [{}, {}) must be {} of shape {} on GPU {}, "
             "but it is {}; make the outputs with split_empty",
             v.name, piece.begin, piece.end, dtype_name(v.dtype), to_string(ps), piece.device, array_text(arr));
      written.push_back(SplitOperand{
          fmt::format("output '{}' (rows [{}, {}) on GPU {})", v.name, piece.begin, piece.end, piece.device), arr.view()});
    }
  }
  for (std::size_t k = 0; k < inputs.size(); ++k)
    if (!inputs[k].value.is_weak()) read.push_back(SplitOperand{fmt::format("input '{}'", inputs[k].name), job.views[k]});
  for (const SplitInput& d : distributed)
    for (const ArrayPiece& piece : d.array.pieces)
      read.push_back(SplitOperand{
          fmt::format("input '{}' (its piece of rows [{}, {}) on GPU {})", d.name, piece.begin, piece.end, piece.device),
          piece.array.view()});
  check_split_aliasing(written, read);
}

void check_options(const char* who, const EvaluateOptions& options, const char* devices_are) {
  if (options.device) fail(ErrorCode::Usage, "{}: the devices are {}; leave EvaluateOptions::device unset", who, devices_are);
  if (options.stream)
    fail(ErrorCode::Usage, "{}: each slice runs on a stream of its own; leave EvaluateOptions::stream null", who);
}

}  // namespace

std::vector<int> all_devices() {
  std::vector<int> d;
  for (int k = 0, n = device_count(); k < n; ++k) d.push_back(k);
  return d;
}

Array SplitArray::gather(Device where) const {
  Array out = Array::empty(dtype, shape, where);
  if (out.nbytes() == 0) return out;
  if (shape.ndim == 0) {
    if (pieces.size() != 1) fail(ErrorCode::Internal, "a 0-d output in {} pieces", pieces.size());
    out.copy_from(pieces[0].array.view());
    return out;
  }
  const std::size_t row = out.nbytes() / static_cast<std::size_t>(shape[0]);
  for (const ArrayPiece& p : pieces) {
    const std::size_t bytes = static_cast<std::size_t>(p.end - p.begin) * row;
    if (p.array.nbytes() != bytes || p.array.device().kind != Device::CUDA)
      fail(ErrorCode::Usage, "SplitArray::gather: the piece of rows [{}, {}) is not {} bytes on a CUDA device", p.begin,
           p.end, bytes);
  }
  auto copy = [&](const ArrayPiece& p) {
    const std::size_t bytes = static_cast<std::size_t>(p.end - p.begin) * row;
    if (bytes == 0) return;
    char* dst = static_cast<char*>(out.data()) + static_cast<std::size_t>(p.begin) * row;
    const auto src = reinterpret_cast<CUdeviceptr>(p.array.data());
    if (where.kind == Device::CPU) memcpy_dtoh(p.device, dst, src, bytes);
    else memcpy_peer(where.id, reinterpret_cast<CUdeviceptr>(dst), p.device, src, bytes);
  };
  // Each GPU's pieces come down its own link at once: one thread per device
  // beyond the first, which this thread copies.
  std::vector<int> devices;
  for (const ArrayPiece& p : pieces)
    if (std::find(devices.begin(), devices.end(), p.device) == devices.end()) devices.push_back(p.device);
  auto copy_device = [&](int d) {
    for (const ArrayPiece& p : pieces)
      if (p.device == d) copy(p);
  };
  std::vector<std::thread> helpers;
  std::vector<std::exception_ptr> errors(devices.size());
  for (std::size_t k = 1; k < devices.size(); ++k)
    helpers.emplace_back([&, k] {
      try {
        copy_device(devices[k]);
      } catch (...) {
        errors[k] = std::current_exception();
      }
    });
  try {
    copy_device(devices[0]);
  } catch (...) {
    errors[0] = std::current_exception();
  }
  for (std::thread& t : helpers) t.join();
  for (const std::exception_ptr& e : errors)
    if (e) std::rethrow_exception(e);
  return out;
}

SplitArray scatter(const ArrayView& a, const std::vector<int>& device_list) {
  const std::vector<int> devices = device_list.empty() ? all_devices() : device_list;
  for (int d : devices) device_info(d);
  SplitArray s;
  s.dtype = a.dtype;
  s.shape = a.shape;
  for (const SplitSlice& slice : plan_split(a.shape, {}, devices)) {
    const ArrayView rows = a.shape.ndim == 0 ? a : rows_of(a, slice.begin, slice.end);
    s.pieces.push_back(ArrayPiece{slice.device, slice.begin, slice.end, Array::copy_of(rows, Device::cuda(slice.device))});
  }
  return s;
}

SplitArray split_empty(DType dtype, const Shape& shape, const std::vector<int>& device_list) {
  const std::vector<int> devices = device_list.empty() ? all_devices() : device_list;
  for (int d : devices) device_info(d);
  SplitArray s;
  s.dtype = dtype;
  s.shape = shape;
  for (const SplitSlice& slice : plan_split(shape, {}, devices))
    s.pieces.push_back(ArrayPiece{slice.device, slice.begin, slice.end, Array::empty(dtype, slice.shape, Device::cuda(slice.device))});
  return s;
}

std::vector<SplitArray> evaluate_split(std::string_view source, const std::vector<NamedArg>& inputs,
                                       const std::vector<int>& devices, const EvaluateOptions& options) {
  return evaluate_split(source, inputs, {}, devices, options);
}

std::vector<SplitArray> evaluate_split(std::string_view source, const std::vector<NamedArg>& inputs,
                                       const std::vector<SplitInput>& distributed, const std::vector<int>& device_list,
                                       const EvaluateOptions& options) {
  check_options("evaluate_split", options, "its list");
  const std::vector<int> devices = device_list.empty() ? all_devices() : device_list;
  for (int d : devices) device_info(d);  // a Device error for an ordinal with no GPU
  const Job job = prepare("evaluate_split", source, inputs, distributed, devices, options, kDefaultKernelName);
  const Program& p = job.gpu->program();
  std::vector<SplitArray> result;
  for (std::size_t o = 0; o < p.outputs.size(); ++o)
    result.push_back(SplitArray{p.outputs[o].name, p.outputs[o].dtype, job.out_shapes[o], {}});
  run(job, inputs, distributed, [&](std::size_t j, std::vector<ArrayView>& out, std::vector<bool>& given) {
    const SplitSlice& s = job.plan[j];
    for (std::size_t o = 0; o < p.outputs.size(); ++o) {
      given.push_back(job.out_rows[o] || j == 0);
      if (!given.back()) {
        out.emplace_back();
        continue;
      }
      const auto [device, b, e, shape] = job.pieces(o)[job.out_rows[o] ? j : 0];
      Array a = Array::empty(p.outputs[o].dtype, shape, Device::cuda(s.device));
      out.push_back(a.view());
      result[o].pieces.push_back(ArrayPiece{device, b, e, std::move(a)});
    }
  });
  return result;
}

void evaluate_split_into(std::string_view source, const std::vector<NamedArg>& inputs,
                         const std::vector<SplitInput>& distributed, const std::vector<SplitArray>& outputs,
                         const EvaluateOptions& options) {
  check_options("evaluate_split_into", options, "where its outputs' pieces are");
  if (outputs.empty() || outputs[0].pieces.empty())
    fail(ErrorCode::Usage,
         "evaluate_split_into: {}; the first output's pieces say which GPUs run the job: pass outputs made by "
         "split_empty(dtype, shape, devices) or an earlier evaluate_split",
         outputs.empty() ? std::string("no outputs were given") : fmt::format("output '{}' has no pieces", outputs[0].name));
  // The GPUs are those of the first output, unless it is one piece and a
  // later one is in more: a reduction can leave an output without the split
  // axis, whole on the first GPU (`s = sum(x); y = x / s`).
  // No device_info() check here: every piece is an array on its GPU, or check_outputs refuses it.
  std::size_t from = 0;
  for (std::size_t o = 1; o < outputs.size() && outputs[0].pieces.size() == 1; ++o)
    if (outputs[o].pieces.size() > outputs[from].pieces.size()) from = o;
  std::vector<int> devices;
  for (const ArrayPiece& piece : outputs[from].pieces) devices.push_back(piece.device);
  const Job job = prepare("evaluate_split_into", source, inputs, distributed, devices, options, kDefaultKernelName);
  check_outputs(job, outputs, devices, from, inputs, distributed);
  run(job, inputs, distributed, [&](std::size_t j, std::vector<ArrayView>& out, std::vector<bool>& given) {
    for (std::size_t o = 0; o < outputs.size(); ++o) {
      given.push_back(job.out_rows[o] || j == 0);
      out.push_back(given.back() ? outputs[o].pieces[job.out_rows[o] ? j : 0].array.view() : ArrayView{});
    }
  });
}

}  // namespace cujit

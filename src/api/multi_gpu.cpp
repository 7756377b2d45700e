#include "cujit/multi_gpu.hpp"
#include "plan/shapes.hpp"

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>

#include <fmt/format.h>

#include "api/call.hpp"
#include "api/programs.hpp"
#include "plan/split_plan.hpp"
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
  Shape shape;                   // the outputs'
  std::vector<SplitSlice> plan;
  bool split = true;             // false: position-dependent, one slice reading every input whole
};

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

  // Each slice would reduce its own rows only; combining the partials
  // (sums, arg indices with the slice's offset, Welford states) is not here yet.
  if (p.has_reductions)
    fail(ErrorCode::Usage,
         "{}: the program has reductions (sum, mean, max, ...), whose partial results a run split over GPUs does not "
         "combine yet; run it on one GPU (evaluate() with device arrays, jitrun --device N), or split only its "
         "elementwise part and reduce the gathered outputs on one GPU",
         who);

  // Position-dependent programs run whole on the first device: a slice's
  // `i` would restart at 0, and an indexed input may be read anywhere.
  job.split = !p.uses_index && !any_raw;
  std::vector<std::optional<Shape>> in_shapes;
  for (std::size_t k = 0; k < job.views.size(); ++k) {
    const bool by_value = params[k].weak || (job.views[k].device.kind == Device::CPU && job.views[k].shape.ndim == 0);
    if (by_value && params[k].raw) fail(ErrorCode::Usage, "raw parameter '{}' needs an array, not a scalar", params[k].name);
    in_shapes.push_back(by_value ? std::nullopt : std::optional<Shape>(job.views[k].shape));
  }
  // The shape as evaluate() finds it: with no array input to give one, a
  // raw input's (so `out = x[n - 1 - i]` reverses x).
  const std::optional<Shape> given = implied_shape(p, job.views.data(), options.shape);
  job.shape = output_shape(broadcast_shape(p, job.views.data()), given ? &*given : nullptr);
  job.plan = plan_split(job.shape, in_shapes, job.split ? devices : std::vector<int>(devices.begin(), devices.begin() + 1));
  return job;
}

// Queues every slice of `job` on a leased stream of its device, then waits
// for all. `outputs_of(j, views)` gives slice j's output views: made by the
// call for evaluate_split, just before its launch, so allocating the next
// slice's outputs overlaps the kernels already queued.
void run(const Job& job, const std::vector<NamedArg>& inputs, const std::vector<SplitInput>& distributed,
         const std::function<void(std::size_t, std::vector<ArrayView>&)>& outputs_of) {
  const std::vector<ArrayView>& views = job.views;
  // Whole inputs gathered to the host, made when first needed.
  std::vector<Array> gathered(distributed.size());
  auto whole = [&](std::size_t j) -> const Array& {
    if (!gathered[j]) gathered[j] = distributed[j].array.gather();
    return gathered[j];
  };
  std::vector<Array> copies;                                  // inputs copied for a slice, alive until the end
  std::map<std::pair<std::size_t, int>, ArrayView> whole_on;  // (input, device) -> its whole copy there
  // Rows [b, e) of input k on `dev`: in place when they are there already.
  auto rows_on = [&](std::size_t k, std::int64_t b, std::int64_t e, const Device& dev) -> ArrayView {
    if (k < inputs.size()) {
      ArrayView v = rows_of(views[k], b, e);
      if (v.device == dev) return v;
      copies.push_back(Array::copy_of(v, dev));
      return copies.back().view();
    }
    const std::size_t j = k - inputs.size();
    for (const ArrayPiece& piece : distributed[j].array.pieces)
      if (piece.device == dev.id && piece.begin <= b && e <= piece.end) return rows_of(piece.array.view(), b - piece.begin, e - piece.begin);
    copies.push_back(Array::copy_of(rows_of(whole(j).view(), b, e), dev));
    return copies.back().view();
  };
  std::vector<std::unique_ptr<Stream>> streams;
  try {
    for (std::size_t j = 0; j < job.plan.size(); ++j) {
      const SplitSlice& s = job.plan[j];
      const Device dev = Device::cuda(s.device);
      std::vector<ArrayView> in(views.size());
      for (std::size_t k = 0; k < views.size(); ++k) {
        const InputCut& c = s.inputs[k];
        if (c.kind == InputCut::Value) {
          in[k] = views[k];
        } else if (c.kind == InputCut::Rows) {
          in[k] = rows_on(k, c.begin, c.end, dev);
        } else if (k < inputs.size() && views[k].device == dev) {
          in[k] = views[k];
        } else {
          auto [it, fresh] = whole_on.try_emplace({k, s.device});
          if (fresh) {
            if (k >= inputs.size() && views[k].shape.ndim > 0) {
              it->second = rows_on(k, 0, views[k].shape[0], dev);  // a piece there may hold it all
            } else {
              copies.push_back(Array::copy_of(k < inputs.size() ? views[k] : whole(k - inputs.size()).view(), dev));
              it->second = copies.back().view();
            }
          }
          in[k] = it->second;
        }
      }
      std::vector<ArrayView> out;
      outputs_of(j, out);
      streams.push_back(StreamPool::instance().take(s.device));
      // The slice is a call of its own on its device, its outputs given.
      Call call(*job.gpu);
      call.where = dev;
      call.stream = streams.back()->get();
      call.move_inputs = false;  // rows_on put each slice's inputs there
      for (std::size_t k = 0; k < in.size(); ++k) call.inputs[k] = in[k];
      for (std::size_t o = 0; o < out.size(); ++o) call.outputs[o] = out[o], call.given[o] = true;
      run_call(call);
    }
    for (const auto& st : streams) st->synchronize();
  } catch (...) {
    // Queued slices still read and write these arrays: let them finish
    // first. The streams are not reused: one may hold a failed launch's state.
    for (const auto& st : streams) {
      try {
        st->synchronize();
      } catch (...) {
      }
    }
    throw;
  }
  for (auto& st : streams) StreamPool::instance().give(std::move(st));
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

// evaluate_split_into's outputs against what `job` writes, before anything
// is copied or launched: Usage errors that say how to make matching ones.
void check_outputs(const Job& job, const std::vector<SplitArray>& outputs, const std::vector<int>& devices,
                   const std::vector<NamedArg>& inputs, const std::vector<SplitInput>& distributed) {
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
  std::vector<std::tuple<int, std::int64_t, std::int64_t>> want;
  for (const SplitSlice& s : job.plan) want.emplace_back(s.device, s.begin, s.end);
  std::vector<SplitOperand> written, read;
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    const SplitArray& a = outputs[o];
    const Var& v = p.outputs[o];
    if (!a.name.empty() && a.name != v.name)
      fail(ErrorCode::Usage,
           "evaluate_split_into: output {} is named '{}', but the program's output {} is '{}'; pass the outputs in the "
           "program's order ({}), or leave the name empty",
           o, a.name, o, v.name, names);
    if (a.dtype != v.dtype || a.shape != job.shape)
      fail(ErrorCode::Usage,
           "evaluate_split_into: output '{}' is {} of shape {}, but the program makes {} of shape {}; make it with "
           "split_empty({}, {}, devices)",
           v.name, dtype_name(a.dtype), to_string(a.shape), dtype_name(v.dtype), to_string(job.shape), dtype_name(v.dtype),
           to_string(job.shape));
    std::vector<std::tuple<int, std::int64_t, std::int64_t>> got;
    for (const ArrayPiece& piece : a.pieces) got.emplace_back(piece.device, piece.begin, piece.end);
    if (got != want)
      fail(ErrorCode::Usage,
           "evaluate_split_into: output '{}' is cut as {}, but the job cuts it as {}{}; make every output with "
           "split_empty(dtype, shape, {{{}}})",
           v.name, cut_text(got), cut_text(want),
           job.split ? fmt::format(" (over GPUs {{{}}}, where output '{}' has its pieces)", device_list, p.outputs[0].name)
                     : std::string(" (the program is not split: it uses `i` or `n`, or indexes an input, so it runs whole on one GPU)"),
           job.split ? device_list : std::to_string(devices[0]));
  }
  // Then what the pieces hold, once every output is known to be cut right.
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    const SplitArray& a = outputs[o];
    const Var& v = p.outputs[o];
    for (std::size_t j = 0; j < a.pieces.size(); ++j) {
      const ArrayPiece& piece = a.pieces[j];
      const Array& arr = piece.array;
      if (!arr || arr.device() != Device::cuda(piece.device) || arr.dtype() != v.dtype || arr.shape() != job.plan[j].shape)
        fail(ErrorCode::Usage,
             "evaluate_split_into: output '{}': the piece of rows [{}, {}) must be {} of shape {} on GPU {}, "
             "but it is {}; make the outputs with split_empty",
             v.name, piece.begin, piece.end, dtype_name(v.dtype), to_string(job.plan[j].shape), piece.device,
             array_text(arr));
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
    if (bytes == 0) continue;
    char* dst = static_cast<char*>(out.data()) + static_cast<std::size_t>(p.begin) * row;
    const auto src = reinterpret_cast<CUdeviceptr>(p.array.data());
    if (where.kind == Device::CPU) {
      memcpy_dtoh(p.device, dst, src, bytes);
    } else if (where.id == p.device) {
      memcpy_dtod(p.device, reinterpret_cast<CUdeviceptr>(dst), src, bytes);
    } else {
      Array staged = p.array.to_host();  // between devices through the host, as Array does
      memcpy_htod(where.id, reinterpret_cast<CUdeviceptr>(dst), staged.data(), bytes);
    }
  }
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
  for (const Var& v : p.outputs) result.push_back(SplitArray{v.name, v.dtype, job.shape, {}});
  run(job, inputs, distributed, [&](std::size_t j, std::vector<ArrayView>& out) {
    const SplitSlice& s = job.plan[j];
    for (std::size_t o = 0; o < p.outputs.size(); ++o) {
      Array a = Array::empty(p.outputs[o].dtype, s.shape, Device::cuda(s.device));
      out.push_back(a.view());
      result[o].pieces.push_back(ArrayPiece{s.device, s.begin, s.end, std::move(a)});
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
  // No device_info() check here: every piece is an array on its GPU, or check_outputs refuses it.
  std::vector<int> devices;
  for (const ArrayPiece& piece : outputs[0].pieces) devices.push_back(piece.device);
  const Job job = prepare("evaluate_split_into", source, inputs, distributed, devices, options, kDefaultKernelName);
  check_outputs(job, outputs, devices, inputs, distributed);
  run(job, inputs, distributed, [&](std::size_t j, std::vector<ArrayView>& out) {
    for (const SplitArray& a : outputs) out.push_back(a.pieces[j].array.view());
  });
}

}  // namespace cujit

#include "cujit/multi_gpu.hpp"

#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <unordered_map>

#include "api/split_plan.hpp"
#include "fail.hpp"
#include "gpu/driver.hpp"
#include "gpu/launch.hpp"
#include "gpu/layout.hpp"
#include "lang/check.hpp"
#include "lang/lex.hpp"
#include "names.hpp"

namespace cujit {

namespace {

// Programs by text and signature, checked once per process (as evaluate() keeps them).
std::shared_ptr<const GpuProgram> program_for(std::string_view source, const std::vector<Param>& params,
                                              const std::vector<OutputDecl>& decls, bool fast_math) {
  static std::mutex mu;
  static auto* programs = new std::unordered_map<std::string, std::shared_ptr<const GpuProgram>>;
  std::string key(source);
  key += '\0';
  for (const Param& q : params)
    key += q.name + ':' + std::to_string(static_cast<int>(q.dtype)) + (q.weak ? "w" : "") + (q.raw ? "r" : "") + ',';
  key += '\0';
  for (const OutputDecl& d : decls) key += d.name + ':' + std::to_string(d.dtype ? static_cast<int>(*d.dtype) : -1) + ',';
  key += '\0';
  if (fast_math) key += "fast";
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = programs->find(key);
    if (it != programs->end()) return it->second;
  }
  auto p = std::make_shared<Program>(compile_program(source, params, decls));
  GpuOptions g;
  g.fast_math = fast_math;
  auto gpu = std::make_shared<const GpuProgram>(std::move(p), g);
  std::lock_guard<std::mutex> lock(mu);
  if (programs->size() >= 1024) programs->clear();
  return programs->emplace(key, gpu).first->second;
}

// Rows [begin, end) of a view, without a copy.
ArrayView rows_of(const ArrayView& v, std::int64_t begin, std::int64_t end) {
  ArrayView s = v;
  s.data = static_cast<char*>(v.data) + begin * v.strides[0];
  s.shape[0] = end - begin;
  return s;
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

std::vector<SplitArray> evaluate_split(std::string_view source, const std::vector<NamedArg>& inputs,
                                       const std::vector<int>& devices, const EvaluateOptions& options) {
  return evaluate_split(source, inputs, {}, devices, options);
}

std::vector<SplitArray> evaluate_split(std::string_view source, const std::vector<NamedArg>& inputs,
                                       const std::vector<SplitInput>& distributed, const std::vector<int>& device_list,
                                       const EvaluateOptions& options) {
  if (options.device)
    fail(ErrorCode::Usage, "evaluate_split: the devices are its list; leave EvaluateOptions::device unset");
  if (options.stream)
    fail(ErrorCode::Usage, "evaluate_split: each slice runs on a stream of its own; leave EvaluateOptions::stream null");
  const std::vector<int> devices = device_list.empty() ? all_devices() : device_list;
  for (int d : devices) device_info(d);  // a Device error for an ordinal with no GPU
  for (const NamedArg& a : inputs) check_name(a.name, "input");
  for (const SplitInput& a : distributed) {
    check_name(a.name, "input");
    if (a.array.pieces.empty()) fail(ErrorCode::Usage, "distributed input '{}' has no pieces", a.name);
  }
  for (const auto& d : options.output_dtypes) check_name(d.first, "output");

  // Whole inputs gathered to the host, made when first needed.
  std::vector<Array> gathered(distributed.size());
  auto whole = [&](std::size_t j) -> const Array& {
    if (!gathered[j]) gathered[j] = distributed[j].array.gather();
    return gathered[j];
  };

  const std::set<std::string> raw = indexed_names(source);
  std::vector<Param> params;
  std::vector<ArrayView> views;  // a distributed input: its first piece's, with the whole shape (for shapes only)
  bool any_raw = false;
  for (const NamedArg& a : inputs) {
    Param q;
    q.name = a.name;
    q.weak = a.value.is_weak();
    q.raw = raw.count(a.name) > 0;
    q.dtype = a.value.view().dtype;
    any_raw = any_raw || q.raw;
    params.push_back(q);
    views.push_back(a.value.view());
  }
  for (const SplitInput& a : distributed) {
    params.push_back(Param{a.name, a.array.dtype, false, raw.count(a.name) > 0});
    any_raw = any_raw || params.back().raw;
    ArrayView v = a.array.pieces[0].array.view();
    v.shape = a.array.shape;
    v.strides = ArrayView::contiguous_strides(v.shape, v.dtype);
    views.push_back(v);
  }
  std::vector<OutputDecl> decls;
  for (const auto& [name, t] : options.output_dtypes) decls.push_back(OutputDecl{name, t});
  std::shared_ptr<const GpuProgram> gpu = program_for(source, params, decls, options.fast_math);
  const Program& p = gpu->program();

  std::vector<SplitArray> result;
  // Position-dependent programs run whole on the first device: a slice's
  // `i` would restart at 0, and an indexed input may be read anywhere.
  if (p.uses_index || any_raw) {
    std::vector<NamedArg> all = inputs;
    for (std::size_t j = 0; j < distributed.size(); ++j) all.push_back(NamedArg{distributed[j].name, whole(j)});
    EvaluateOptions one = options;
    one.device = Device::cuda(devices[0]);
    NamedArrays outs = evaluate(source, all, one);
    for (NamedArray& o : outs) {
      SplitArray s;
      s.name = o.name;
      s.dtype = o.array.dtype();
      s.shape = o.array.shape();
      const std::int64_t rows = s.shape.ndim == 0 ? 1 : s.shape[0];
      s.pieces.push_back(ArrayPiece{devices[0], 0, rows, std::move(o.array)});
      result.push_back(std::move(s));
    }
    return result;
  }

  const Shape shape = output_shape(broadcast_shape(p, views.data()), options.shape ? &*options.shape : nullptr);
  std::vector<std::optional<Shape>> in_shapes;
  for (std::size_t k = 0; k < views.size(); ++k) {
    const bool by_value = params[k].weak || (views[k].device.kind == Device::CPU && views[k].shape.ndim == 0);
    in_shapes.push_back(by_value ? std::nullopt : std::optional<Shape>(views[k].shape));
  }
  const std::vector<SplitSlice> plan = plan_split(shape, in_shapes, devices);

  for (const Var& v : p.outputs) result.push_back(SplitArray{v.name, v.dtype, shape, {}});
  std::vector<Array> copies;                                  // inputs copied for a slice, alive until the end
  std::map<std::pair<std::size_t, int>, ArrayView> whole_on;  // (input, device) -> its whole copy there
  std::vector<std::unique_ptr<Stream>> streams;
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
  try {
    for (const SplitSlice& s : plan) {
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
      for (std::size_t o = 0; o < p.outputs.size(); ++o) {
        Array a = Array::empty(p.outputs[o].dtype, s.shape, dev);
        out.push_back(a.view());
        result[o].pieces.push_back(ArrayPiece{s.device, s.begin, s.end, std::move(a)});
      }
      streams.push_back(std::make_unique<Stream>(s.device));
      gpu->launch(s.device, in.data(), out.data(), streams.back()->get());
    }
    for (const auto& st : streams) st->synchronize();
  } catch (...) {
    // Queued slices still read and write these arrays: let them finish first.
    for (const auto& st : streams) {
      try {
        st->synchronize();
      } catch (...) {
      }
    }
    throw;
  }
  return result;
}

}  // namespace cujit

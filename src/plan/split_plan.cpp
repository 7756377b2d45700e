#include "plan/split_plan.hpp"

#include <algorithm>

#include "core/fail.hpp"

namespace cujit {

std::vector<SplitSlice> plan_split(const Shape& out, const std::vector<std::optional<Shape>>& inputs,
                                   const std::vector<int>& devices) {
  if (devices.empty()) fail(ErrorCode::Usage, "a split job needs at least one CUDA device");
  const std::int64_t rows = out.ndim == 0 ? 1 : out[0];
  // Rows shared out as evenly as they go; never an empty slice unless the output is empty.
  const std::int64_t pieces = std::max<std::int64_t>(1, std::min<std::int64_t>(static_cast<std::int64_t>(devices.size()), rows));
  const bool cut = out.ndim > 0 && pieces > 1;
  std::vector<SplitSlice> plan;
  for (std::int64_t j = 0; j < pieces; ++j) {
    SplitSlice s;
    s.device = devices[static_cast<std::size_t>(j)];
    // In quotient and remainder, so no product of rows and j can overflow.
    s.begin = rows / pieces * j + std::min(j, rows % pieces);
    s.end = s.begin + rows / pieces + (j < rows % pieces ? 1 : 0);
    s.shape = out;
    if (out.ndim > 0) s.shape[0] = s.end - s.begin;
    for (const std::optional<Shape>& in : inputs) {
      InputCut c;
      if (!in) c.kind = InputCut::Value;
      else if (cut && in->ndim == out.ndim && (*in)[0] == rows) c = InputCut{InputCut::Rows, s.begin, s.end};
      else c.kind = InputCut::Whole;
      s.inputs.push_back(c);
    }
    plan.push_back(std::move(s));
  }
  return plan;
}

}  // namespace cujit

namespace cujit {

namespace {

// The bytes [lo, hi) a view can touch (strides may be negative); empty for no elements.
struct Bytes {
  std::uintptr_t lo = 0, hi = 0;
};
Bytes bytes_of(const ArrayView& v) {
  if (v.size() == 0) return {};
  auto lo = reinterpret_cast<std::uintptr_t>(v.data), hi = lo;
  for (int d = 0; d < v.shape.ndim; ++d) {
    const std::int64_t span = (v.shape[d] - 1) * v.strides[d];
    if (span < 0) lo -= static_cast<std::uintptr_t>(-span);
    else hi += static_cast<std::uintptr_t>(span);
  }
  return {lo, hi + v.itemsize()};
}

bool share_bytes(const ArrayView& a, const ArrayView& b) {
  if (a.device != b.device) return false;
  const Bytes x = bytes_of(a), y = bytes_of(b);
  return x.lo < x.hi && y.lo < y.hi && x.lo < y.hi && y.lo < x.hi;
}

}  // namespace

void check_split_aliasing(const std::vector<SplitOperand>& outputs, const std::vector<SplitOperand>& inputs) {
  for (std::size_t o = 0; o < outputs.size(); ++o) {
    for (std::size_t q = 0; q < o; ++q)
      if (share_bytes(outputs[q].view, outputs[o].view))
        fail(ErrorCode::Usage, "evaluate_split_into: {} and {} share memory; give every piece of every output its own array (split_empty)",
             outputs[q].what, outputs[o].what);
    for (const SplitOperand& in : inputs)
      if (share_bytes(in.view, outputs[o].view))
        fail(ErrorCode::Usage,
             "evaluate_split_into: {} shares memory with {}, which the slices still read; write to arrays no input uses "
             "(split_empty), or update in place on one device with evaluate()",
             outputs[o].what, in.what);
  }
}

}  // namespace cujit

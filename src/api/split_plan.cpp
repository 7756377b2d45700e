#include "api/split_plan.hpp"

#include <algorithm>

#include "fail.hpp"

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

// The strided layout: some operand strided and no rows or tiles layout fits;
// the dimensions coalesced over the strided operands (contiguous ones index by
// k), each element's offsets found from its multi-index. Key ".d<ndim>".
#include "plan/layouts/layout_rule.hpp"

namespace cujit {
namespace {

std::string key_fields(const KernelLayout& l) { return ".d" + std::to_string(l.ndim); }

bool parse_fields(const std::vector<std::string>& f, KernelLayout& l) { return f.size() == 1 && key_number(f[0], 'd', l.ndim); }

std::string check(const KernelLayout& l, const AccessSummary& s) {
  if (l.ndim < 1 || l.ndim > kMaxDims) return "ndim must be 1.." + std::to_string(kMaxDims);
  if (!s.any_strided) return "a strided layout needs a strided operand";
  if (l.vec != 1) return "a strided layout does not vectorize";
  return "";
}

bool choose(const OperandAnalysis& a, LaunchPlan& plan) {
  if (!a.any_strided) return false;
  KernelLayout l = a.base;
  std::vector<const Walked*> ops;
  for (const Walked& w : a.walked)
    if (a.access(l, w) == Access::Strided) ops.push_back(&w);
  std::vector<Dim> dims = a.coalesce(ops);
  l.kind = KernelLayout::Kind::Strided;
  l.ndim = static_cast<int>(dims.size());
  l.index64 = a.needs_wide(dims, ops.size());
  std::vector<std::int64_t> ext;
  std::vector<std::vector<std::int64_t>> st;
  dims_arrays(dims, ops.size(), ext, st);
  plan.layout_arg = pack_layout_arg(l, ext, st);
  plan.layout = l;
  return true;
}

}  // namespace

KernelLayout strided_layout(const Program& p, int ndim, bool index64) {
  KernelLayout l = base_layout(p, Access::Strided);
  l.kind = KernelLayout::Kind::Strided;
  l.ndim = ndim;
  l.index64 = index64;
  return l;
}

extern const LayoutRule kStridedRule = {KernelLayout::Kind::Strided, 's', true, false, Access::Contig, nullptr, false, false, key_fields, parse_fields, check, choose};

}  // namespace cujit

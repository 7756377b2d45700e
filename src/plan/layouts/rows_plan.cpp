// The rows layout: after coalescing over every walked operand, 2 or more
// dimensions with each output contiguous and each input contiguous or
// constant (RowScalar) along the last; a row's offsets found once, the row in
// vectors aligned at every row start. Key ".v<vec>.d<ndim>".
#include "plan/layouts/layout_rule.hpp"

namespace cujit {
namespace {

std::string key_fields(const KernelLayout& l) { return ".v" + std::to_string(l.vec) + ".d" + std::to_string(l.ndim); }

bool parse_fields(const std::vector<std::string>& f, KernelLayout& l) {
  return f.size() == 2 && key_number(f[0], 'v', l.vec) && key_number(f[1], 'd', l.ndim);
}

std::string check(const KernelLayout& l, const AccessSummary& s) {
  if (l.ndim < 2 || l.ndim > kMaxDims) return "ndim must be 2.." + std::to_string(kMaxDims);
  if (s.any_contig) return "a rows layout reaches its operands by rows (strided), not contiguous";
  if (!s.vec_ok) return "vec must be 1, 2, 4, 8 or 16";
  return "";
}

bool choose(const OperandAnalysis& a, LaunchPlan& plan) {
  if (!a.any_strided || !a.rows) return false;
  std::vector<const Walked*> all;
  for (const Walked& w : a.walked) all.push_back(&w);
  std::vector<Dim> dims = a.coalesce(all);
  bool fits = dims.size() >= 2;
  for (std::size_t o = 0; fits && o < all.size(); ++o) {
    std::int64_t inner = dims.back().st[o];
    fits = inner == all[o]->item || (!all[o]->output && inner == 0);
  }
  if (!fits) return false;
  KernelLayout l = a.base;
  l.kind = KernelLayout::Kind::Rows;
  l.ndim = static_cast<int>(dims.size());
  l.index64 = a.needs_wide(dims, all.size());
  std::vector<std::int64_t> ext;
  std::vector<std::vector<std::int64_t>> st;
  dims_arrays(dims, all.size(), ext, st);
  for (std::size_t o = 0; o < all.size(); ++o) a.access(l, *all[o]) = dims.back().st[o] == 0 ? Access::RowScalar : Access::Strided;
  const std::int64_t inner = dims.back().extent;
  // Every row start of a row-contiguous operand aligned to the vector, and
  // no vector wider than a row.
  l.vec = a.widest_vec([&](int vec) {
    if (vec > inner) return false;
    for (std::size_t o = 0; o < all.size(); ++o) {
      if (a.access(l, *all[o]) != Access::Strided) continue;
      if (!aligned(static_cast<std::int64_t>(all[o]->address), vec, all[o]->item)) return false;
      for (std::size_t d = 0; d + 1 < dims.size(); ++d)
        if (!aligned(st[o][d], vec, all[o]->item)) return false;
    }
    return true;
  });
  plan.inner = inner;
  plan.rows = inner > 0 ? plan.n / inner : 0;
  plan.layout_arg = pack_layout_arg(l, ext, st);
  plan.layout = l;
  return true;
}

}  // namespace

KernelLayout rows_layout(const Program& p, int ndim, int vec, bool index64) {
  KernelLayout l = base_layout(p, Access::Strided);
  l.kind = KernelLayout::Kind::Rows;
  l.ndim = ndim;
  l.vec = vec;
  l.index64 = index64;
  return l;
}

extern const LayoutRule kRowsRule = {KernelLayout::Kind::Rows, 'r', true, true, Access::RowScalar,
                                   "only a rows layout has per-row operands", false, true, key_fields, parse_fields, check, choose};

}  // namespace cujit

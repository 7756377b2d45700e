// The contiguous layout: no operand strided (each Contig, Uniform, Value or
// Raw); element k is p[k], `vec` elements a step where every Contig pointer is
// aligned to the vector. Key ".v<vec>".
#include "plan/layouts/layout_rule.hpp"

#include <limits>

namespace cujit {
namespace {

std::string key_fields(const KernelLayout& l) { return ".v" + std::to_string(l.vec); }

bool parse_fields(const std::vector<std::string>& f, KernelLayout& l) { return f.size() == 1 && key_number(f[0], 'v', l.vec); }

std::string check(const KernelLayout&, const AccessSummary& s) {
  if (s.any_strided) return "a contiguous layout has no strided operands";
  if (!s.vec_ok) return "vec must be 1, 2, 4, 8 or 16";
  return "";
}

bool choose(const OperandAnalysis& a, LaunchPlan& plan) {
  if (a.any_strided) return false;
  KernelLayout l = a.base;
  l.index64 = a.force_index64 || a.n > std::numeric_limits<std::int32_t>::max();
  l.vec = a.widest_vec([&](int vec) {
    for (const Walked& w : a.walked)
      if (a.access(l, w) == Access::Contig && !aligned(static_cast<std::int64_t>(w.address), vec, w.item)) return false;
    return true;
  });
  plan.layout = l;
  return true;
}

}  // namespace

KernelLayout contiguous_layout(const Program& p, int vec, bool index64) {
  KernelLayout l = base_layout(p, Access::Contig);
  l.vec = vec;
  l.index64 = index64;
  return l;
}

extern const LayoutRule kContiguousRule = {KernelLayout::Kind::Contiguous, 'c', false, false, Access::Contig, nullptr, false, false, key_fields, parse_fields, check, choose};

}  // namespace cujit

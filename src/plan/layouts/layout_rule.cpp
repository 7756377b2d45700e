#include "plan/layouts/layout_rule.hpp"

#include <algorithm>
#include <limits>

#include "core/fail.hpp"

namespace cujit {

extern const LayoutRule kRowsRule, kTilesRule, kStridedRule, kContiguousRule;

const std::vector<const LayoutRule*>& layout_rules() {
  // The list of layouts' plan halves (src/gpu/layouts/layout_codegen.cpp lists their GPU
  // halves). The first that applies is the call's: Rows before Tiles before
  // Strided; Contiguous when no operand is strided.
  static const std::vector<const LayoutRule*> rules = {&kRowsRule, &kTilesRule, &kStridedRule, &kContiguousRule};
  return rules;
}

const LayoutRule& layout_rule(KernelLayout::Kind kind) {
  for (const LayoutRule* r : layout_rules())
    if (r->kind == kind) return *r;
  fail(ErrorCode::Internal, "no plan for layout kind {}", static_cast<int>(kind));
}

KernelLayout base_layout(const Program& p, Access arrays) {
  KernelLayout l;
  l.outputs.assign(p.outputs.size(), arrays);
  for (const Param& q : p.inputs) l.inputs.push_back(q.raw ? Access::Raw : q.weak ? Access::Value : arrays);
  return l;
}

bool key_number(const std::string& t, char what, int& out) {
  if (t.size() < 2 || t.size() > 3 || t[0] != what || t.find_first_not_of("0123456789", 1) != std::string::npos) return false;
  out = std::stoi(t.substr(1));
  return true;
}

std::vector<Dim> OperandAnalysis::coalesce(const std::vector<const Walked*>& ops) const {
  std::vector<Dim> dims;
  for (int d = 0; d < shape.ndim; ++d) {
    if (shape[d] == 1) continue;
    Dim cur{shape[d], {}};
    for (const Walked* w : ops) cur.st.push_back(w->st[d]);
    bool merge = !dims.empty();
    for (std::size_t o = 0; merge && o < ops.size(); ++o) merge = dims.back().st[o] == cur.st[o] * cur.extent;
    if (merge) {
      dims.back().extent *= cur.extent;
      dims.back().st = cur.st;
    } else {
      dims.push_back(cur);
    }
  }
  if (dims.empty()) dims.push_back({1, std::vector<std::int64_t>(ops.size(), 0)});
  return dims;
}

bool OperandAnalysis::needs_wide(const std::vector<Dim>& dims, std::size_t nops) const {
  const std::int64_t limit = std::numeric_limits<std::int32_t>::max();
  bool wide = force_index64 || n > limit;
  for (std::size_t o = 0; o < nops; ++o) {
    std::int64_t reach = 0;
    for (const Dim& d : dims) reach += (d.extent - 1) * (d.st[o] < 0 ? -d.st[o] : d.st[o]);
    wide = wide || reach > limit;
  }
  return wide;
}

int OperandAnalysis::widest_vec(const std::function<bool(int)>& ok) const {
  int vec = preferred_vec(p, max_vector);
  while (vec > 1 && !ok(vec)) vec /= 2;
  return vec;
}

void dims_arrays(const std::vector<Dim>& dims, std::size_t nops, std::vector<std::int64_t>& ext,
                 std::vector<std::vector<std::int64_t>>& st) {
  st.assign(nops, {});
  for (const Dim& d : dims) {
    ext.push_back(d.extent);
    for (std::size_t o = 0; o < nops; ++o) st[o].push_back(d.st[o]);
  }
}

}  // namespace cujit

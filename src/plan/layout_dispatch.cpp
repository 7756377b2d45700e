// The layouts' dispatchers: a layout's key, its parser, its checks, its Layout
// argument and the choice of one for a call ask each layout's unit
// (src/plan/layouts/) for its part.
#include "plan/layout.hpp"
#include "plan/shapes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <optional>
#include <string>

#include "lang/check.hpp"
#include "core/fail.hpp"
#include "plan/layouts/layout_rule.hpp"

namespace cujit {

namespace {

char access_letter(Access a) {
  switch (a) {
    case Access::Contig: return 'c';
    case Access::Strided: return 's';
    case Access::Uniform: return 'u';
    case Access::Value: return 'v';
    case Access::Raw: return 'r';
    case Access::RowScalar: return 'b';
    case Access::Tiled: return 't';
  }
  return '?';
}

std::optional<Access> access_of(char c) {
  for (Access a : {Access::Contig, Access::Strided, Access::Uniform, Access::Value, Access::Raw, Access::RowScalar, Access::Tiled})
    if (access_letter(a) == c) return a;
  return std::nullopt;
}

}  // namespace

// ---------------------------------------------------------------------------
// Layouts.

std::string KernelLayout::key_string() const {
  std::string s(1, layout_rule(kind).letter);
  s += index64 ? ".i64" : ".i32";
  s += layout_rule(kind).key_fields(*this);
  s += "|o:";
  for (std::size_t k = 0; k < outputs.size(); ++k) s += (k ? "," : "") + std::string(1, access_letter(outputs[k]));
  s += "|i:";
  for (std::size_t k = 0; k < inputs.size(); ++k) s += (k ? "," : "") + std::string(1, access_letter(inputs[k]));
  return s;
}

std::optional<KernelLayout> parse_layout_key(const std::string& s) {
  KernelLayout l;
  std::size_t bar1 = s.find('|'), bar2 = bar1 == std::string::npos ? bar1 : s.find('|', bar1 + 1);
  if (bar2 == std::string::npos) return std::nullopt;
  std::vector<std::string> head;  // "r.i32.v4.d2" -> r, i32, v4, d2
  for (std::size_t a = 0, b; a <= bar1; a = b + 1) {
    b = std::min(s.find('.', a), bar1);
    head.push_back(s.substr(a, b - a));
  }
  const LayoutRule* rule = nullptr;
  for (const LayoutRule* r : layout_rules())
    if (head[0].size() == 1 && head[0][0] == r->letter) rule = r;
  if (!rule || head.size() < 2 || (head[1] != "i32" && head[1] != "i64")) return std::nullopt;
  l.kind = rule->kind;
  l.index64 = head[1] == "i64";
  if (!rule->parse_fields(std::vector<std::string>(head.begin() + 2, head.end()), l)) return std::nullopt;
  auto list = [](const std::string& text, const char* tag, std::vector<Access>& out) {
    if (text.compare(0, 2, tag) != 0) return false;
    for (std::size_t k = 2; k < text.size(); k += 2) {
      auto a = access_of(text[k]);
      if (!a || (k + 1 < text.size() && text[k + 1] != ',')) return false;
      out.push_back(*a);
    }
    return true;
  };
  if (!list(s.substr(bar1 + 1, bar2 - bar1 - 1), "o:", l.outputs) || !list(s.substr(bar2 + 1), "i:", l.inputs)) return std::nullopt;
  if (l.key_string() != s) return std::nullopt;  // one spelling only
  return l;
}

void validate_layout(const Program& p, const KernelLayout& l) {
  auto bad = [&](const std::string& why) { fail(ErrorCode::Internal, "kernel layout {} does not fit the program: {}", l.key_string(), why); };
  if (l.outputs.size() != p.outputs.size()) bad("it describes " + std::to_string(l.outputs.size()) + " outputs, the program has " + std::to_string(p.outputs.size()));
  if (l.inputs.size() != p.inputs.size()) bad("it describes " + std::to_string(l.inputs.size()) + " inputs, the program has " + std::to_string(p.inputs.size()));
  const LayoutRule& rule = layout_rule(l.kind);
  AccessSummary sum;
  for (std::size_t k = 0; k < l.outputs.size(); ++k) {
    Access a = l.outputs[k];
    if (a != Access::Contig && a != Access::Strided) bad("output '" + p.outputs[k].name + "' must be contiguous or strided");
    if (rule.strided_outputs && a != Access::Strided) bad("output '" + p.outputs[k].name + "' of a rows or tiles layout must be strided");
    sum.any_strided = sum.any_strided || a == Access::Strided;
    sum.any_contig = sum.any_contig || a == Access::Contig;
  }
  for (std::size_t k = 0; k < l.inputs.size(); ++k) {
    const Param& q = p.inputs[k];
    Access a = l.inputs[k];
    if (q.raw != (a == Access::Raw)) bad("input '" + q.name + (q.raw ? "' is raw" : "' is not raw"));
    if (q.weak && a != Access::Value) bad("weak scalar '" + q.name + "' must be passed by value");
    sum.any_strided = sum.any_strided || a == Access::Strided;
    sum.any_contig = sum.any_contig || a == Access::Contig;
    sum.any_row_scalar = sum.any_row_scalar || a == Access::RowScalar;
    sum.any_tiled = sum.any_tiled || a == Access::Tiled;
  }
  sum.vec_ok = l.vec == 1 || l.vec == 2 || l.vec == 4 || l.vec == 8 || l.vec == 16;
  if (std::string why = rule.check(l, sum); !why.empty()) bad(why);
  // The accesses of another layout's own.
  auto uses = [&](Access a) {
    return std::find(l.outputs.begin(), l.outputs.end(), a) != l.outputs.end() ||
           std::find(l.inputs.begin(), l.inputs.end(), a) != l.inputs.end();
  };
  for (const LayoutRule* r : layout_rules())
    if (r != &rule && r->own_access_message && uses(r->own_access)) bad(r->own_access_message);
  if (!rule.load_store_vec && (l.load_vec != 1 || l.store_vec != 1)) bad("only a tiles layout has load_vec and store_vec");
}

std::vector<unsigned char> pack_layout_arg(const KernelLayout& l, const std::vector<std::int64_t>& full_shape,
                                           const std::vector<std::vector<std::int64_t>>& full_strides) {
  if (!layout_rule(l.kind).layout_arg) fail(ErrorCode::Internal, "pack_layout_arg: layout {} is contiguous", l.key_string());
  const bool rows = layout_rule(l.kind).row_header;
  std::size_t nstrided = 0;
  for (Access a : l.outputs) nstrided += has_strides(a);
  for (Access a : l.inputs) nstrided += has_strides(a);
  std::size_t nd = static_cast<std::size_t>(l.ndim);
  if (full_shape.size() != nd || full_strides.size() != nstrided)
    fail(ErrorCode::Internal, "pack_layout_arg: layout {} wants {} extents and {} stride rows, got {} and {}", l.key_string(), nd,
         nstrided, full_shape.size(), full_strides.size());
  for (const auto& row : full_strides)
    if (row.size() != nd) fail(ErrorCode::Internal, "pack_layout_arg: a stride row has {} entries, the layout {}", row.size(), nd);
  // Rows: the inner dimension is implicit (itemsize or 0 by the access); the
  // outer dimensions are packed as a strided layout's.
  std::vector<std::int64_t> shape = full_shape;
  std::vector<std::vector<std::int64_t>> strides = full_strides;
  if (rows) {
    shape.pop_back();
    for (auto& row : strides) row.pop_back();
  }
  std::vector<unsigned char> out;
  auto put = [&](std::int64_t v, bool is_shape) {
    if (l.index64) {
      unsigned char b[8];
      std::memcpy(b, &v, 8);
      out.insert(out.end(), b, b + 8);
      return;
    }
    bool ok = is_shape ? (v >= 0 && v <= 0xffffffffLL) : (v >= std::numeric_limits<std::int32_t>::min() && v <= std::numeric_limits<std::int32_t>::max());
    if (!ok) fail(ErrorCode::Internal, "pack_layout_arg: {} {} needs 64-bit indexing", is_shape ? "extent" : "stride", v);
    std::uint32_t u = static_cast<std::uint32_t>(v);
    unsigned char b[4];
    std::memcpy(b, &u, 4);
    out.insert(out.end(), b, b + 4);
  };
  if (rows) {
    std::int64_t nrows = 1;
    for (std::int64_t e : shape) nrows *= e;
    put(full_shape.back(), true);
    put(nrows, true);
  }
  for (std::int64_t e : shape) put(e, true);
  if (!l.index64) {
    // q = (umulhi(r, magic) + r) >> shift is r / extent for every r < 2^31 (Granlund and
    // Montgomery; PyTorch's IntDivider): shift = ceil(log2(extent)),
    // magic = floor(2^32 * (2^shift - extent) / extent) + 1.
    std::vector<std::int64_t> magic, shift;
    for (std::int64_t e : shape) {
      std::int64_t sh = 0;
      while (sh < 32 && (std::int64_t{1} << sh) < e) ++sh;
      std::uint64_t m = e <= 0 ? 0 : (((std::uint64_t{1} << 32) * ((std::uint64_t{1} << sh) - static_cast<std::uint64_t>(e))) /
                                      static_cast<std::uint64_t>(e)) + 1;
      magic.push_back(static_cast<std::int64_t>(m));
      shift.push_back(sh);
    }
    for (std::int64_t m : magic) put(m, true);
    for (std::int64_t sh : shift) put(sh, true);
  }
  for (const auto& row : strides)
    for (std::int64_t st : row) put(st, false);
  return out;
}

// ---------------------------------------------------------------------------
// Planning one call.

namespace {

bool is_c_contiguous(const Shape& shape, const Shape& strides, std::size_t item) {
  std::int64_t want = static_cast<std::int64_t>(item);
  for (int d = shape.ndim - 1; d >= 0; --d) {
    if (shape[d] != 1 && strides[d] != want) return false;
    want *= shape[d];
  }
  return true;
}

}  // namespace

namespace {

// Each operand's access as a contiguous or strided layout would reach it (the
// layouts refine Strided ones), and the operands the kernel walks.
void classify_operands(OperandAnalysis& a, const std::vector<OperandView>& inputs, const std::vector<OperandView>& outputs) {
  const Program& p = a.p;
  const Shape& shape = a.shape;
  // Byte strides of an operand in the outputs' shape (0 where it broadcasts).
  auto aligned_strides = [&](const OperandView& v) {
    Shape st;
    st.ndim = shape.ndim;
    for (int d = 0; d < shape.ndim; ++d) {
      int dv = d - (shape.ndim - v.shape.ndim);
      st[d] = dv >= 0 && v.shape[dv] != 1 ? v.strides[dv] : 0;
    }
    return st;
  };
  KernelLayout& l = a.base;
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    std::size_t item = dtype_size(p.outputs[k].dtype);
    Shape st = aligned_strides(outputs[k]);
    a.walked.push_back({true, k, st, static_cast<std::int64_t>(item), outputs[k].address});
    if (is_c_contiguous(shape, outputs[k].strides, item)) {
      l.outputs.push_back(Access::Contig);
      continue;
    }
    for (int d = 0; d < shape.ndim; ++d)
      if (shape[d] > 1 && st[d] == 0) fail(ErrorCode::Usage, "output '{}' overlaps itself (a zero stride)", p.outputs[k].name);
    l.outputs.push_back(Access::Strided);
    a.any_strided = true;
  }
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const Param& q = p.inputs[k];
    const OperandView& v = inputs[k];
    if (q.weak) {
      l.inputs.push_back(Access::Value);
      continue;
    }
    check_input(p, k, v.dtype, v.shape, v.strides);
    if (q.raw) {
      l.inputs.push_back(Access::Raw);
      continue;
    }
    if (v.host_value) {
      if (v.shape.size() != 1) fail(ErrorCode::Usage, "input '{}' is passed by value but has {} elements", q.name, v.shape.size());
      l.inputs.push_back(Access::Value);
      continue;
    }
    Shape st = aligned_strides(v);
    bool all_zero = true;
    for (int d = 0; d < st.ndim; ++d) all_zero = all_zero && (shape[d] == 1 || st[d] == 0);
    if (v.shape.size() == 1 || all_zero) {
      l.inputs.push_back(Access::Uniform);
      continue;
    }
    a.walked.push_back({false, k, st, static_cast<std::int64_t>(dtype_size(q.dtype)), v.address});
    if (v.shape.size() == a.n && is_c_contiguous(shape, st, dtype_size(q.dtype))) {
      l.inputs.push_back(Access::Contig);
    } else {
      l.inputs.push_back(Access::Strided);
      a.any_strided = true;
    }
  }
}

}  // namespace

LaunchPlan plan_launch(const Program& p, const std::vector<OperandView>& inputs, const std::vector<OperandView>& outputs,
                       int max_vector, bool force_index64, bool rows) {
  if (inputs.size() != p.inputs.size() || outputs.size() != p.outputs.size())
    fail(ErrorCode::Usage, "the program has {} inputs and {} outputs, but {} and {} were given", p.inputs.size(),
         p.outputs.size(), inputs.size(), outputs.size());
  // NumPy broadcasting over the array inputs (the CPU evaluator's rule and message).
  Shape bshape;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const Param& q = p.inputs[k];
    if (q.weak || q.raw || inputs[k].host_value) continue;
    bshape = broadcast_input(bshape, inputs[k].shape, q.name);
  }
  OperandAnalysis a(p);
  a.shape = outputs.empty() ? bshape : outputs[0].shape;
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    // As NumPy's `out=`: the inputs must broadcast to the outputs' shape (which
    // may be larger than theirs, e.g. scalars filling an array).
    check_given_output(p, k, outputs[k].dtype, outputs[k].shape, a.shape, bshape);
  }
  a.n = a.shape.size();
  a.max_vector = max_vector;
  a.force_index64 = force_index64;
  a.rows = rows;
  classify_operands(a, inputs, outputs);
  LaunchPlan plan;
  plan.shape = a.shape;
  plan.n = a.n;
  // The first layout that applies (src/plan/layouts/: Contiguous always does, when no operand is strided).
  for (const LayoutRule* r : layout_rules())
    if (r->choose(a, plan)) break;
  validate_layout(p, plan.layout);
  return plan;
}

}  // namespace cujit

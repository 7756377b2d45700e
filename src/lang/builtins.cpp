// The operators, functions and casts: the rows of ops.def as Builtin records.
#include <array>
#include <vector>

#include "lang/builtins.hpp"

namespace cujit {

namespace {

constexpr bool punctuation(std::string_view s) { return !s.empty() && !(s[0] >= 'a' && s[0] <= 'z'); }

constexpr Builtin kTable[] = {
#define OP(Id, spelling, alias1, alias2, min_args, max_args, loops, special, flags, impl) \
  {Op::Id, spelling, alias1, alias2, min_args, max_args, loops, Special::special, flags, #impl, punctuation(spelling), Reduce::None, ""},
#define FORM(Id, spelling, alias1, alias2, min_args, max_args, special) \
  {Op::Id, spelling, alias1, alias2, min_args, max_args, "", Special::special, "", "", false, Reduce::None, ""},
#define REDUCE(Id, spelling, alias1, alias2, reduce, keywords, flags) \
  {Op::Id, spelling, alias1, alias2, 1, 1, "", Special::Reduce, flags, "", false, Reduce::reduce, keywords},
#include "lang/ops.def"
};

constexpr std::size_t kCount = sizeof(kTable) / sizeof(kTable[0]);

// builtin() indexes the table by id: its rows must be in enum order.
constexpr bool in_order() {
  for (std::size_t k = 0; k < kCount; ++k)
    if (static_cast<std::size_t>(kTable[k].id) != k) return false;
  return true;
}
static_assert(in_order(), "ops.def rows and the Op enum disagree");

}  // namespace

const Builtin& builtin(Op op) { return kTable[static_cast<std::size_t>(op)]; }

std::size_t builtin_count() { return kCount; }

const char* op_text(Op op) { return builtin(op).name.data(); }

DType Builtin::loop_result(DType op_type) const {
  for (std::size_t k = 0; k < loops.size();) {
    std::size_t end = loops.find(' ', k);
    if (end == std::string_view::npos) end = loops.size();
    std::string_view tok = loops.substr(k, end - k);
    k = end + 1;
    if (dtype_for_char(tok[0]) == op_type) return tok.size() > 1 ? dtype_for_char(tok[1]) : op_type;
  }
  return op_type;  // forms, and the int64 loop of an int64/uint64 comparison
}

const Builtin* find_builtin(std::string_view name) {
  for (const Builtin& b : kTable)
    if (!b.is_operator && (b.name == name || (!b.alias1.empty() && b.alias1 == name) || (!b.alias2.empty() && b.alias2 == name)))
      return &b;
  return nullptr;
}

std::vector<std::string_view> builtin_names() {
  std::vector<std::string_view> v;
  for (const Builtin& b : kTable) {
    if (b.is_operator) continue;
    v.push_back(b.name);
    if (!b.alias1.empty()) v.push_back(b.alias1);
    if (!b.alias2.empty()) v.push_back(b.alias2);
  }
  return v;
}

bool Builtin::takes_keyword(std::string_view kw) const {
  for (std::size_t k = 0; k < keywords.size();) {
    std::size_t end = keywords.find(' ', k);
    if (end == std::string_view::npos) end = keywords.size();
    if (keywords.substr(k, end - k) == kw) return true;
    k = end + 1;
  }
  return false;
}

DType reduce_result(const Builtin& b, DType in, const std::optional<DType>& dtype) {
  switch (b.reduce) {
    case Reduce::Sum:
    case Reduce::Prod:
      if (dtype) return *dtype;
      if (is_bool(in) || (is_integer(in) && is_signed_int(in) && in != DType::Int64)) return DType::Int64;
      if (is_integer(in) && !is_signed_int(in) && in != DType::UInt64) return DType::UInt64;
      return in;
    case Reduce::Mean:
      if (dtype) return *dtype;
      return is_bool(in) || is_integer(in) ? DType::Float64 : in;
    case Reduce::Var:
    case Reduce::Std:
      if (is_bool(in) || is_integer(in)) return DType::Float64;
      if (in == DType::Complex64) return DType::Float32;
      if (in == DType::Complex128) return DType::Float64;
      return in;
    case Reduce::Any:
    case Reduce::All: return DType::Bool;
    case Reduce::ArgMin:
    case Reduce::ArgMax: return DType::Int64;
    default: return in;  // min, max
  }
}

DType reduce_accumulator(const Builtin& b, DType in, const std::optional<DType>& dtype) {
  DType r = reduce_result(b, in, dtype);
  switch (b.reduce) {
    case Reduce::Mean:
    case Reduce::Var:
    case Reduce::Std:
      // mean with an integer dtype= sums in that dtype, as NumPy does.
      if (b.reduce == Reduce::Mean && dtype && !is_float(*dtype) && !is_complex(*dtype)) return *dtype;
      if (is_complex(in) && b.reduce != Reduce::Mean) return in == DType::Complex64 ? DType::Complex64 : DType::Complex128;
      break;
    case Reduce::Min:
    case Reduce::Max:
    case Reduce::ArgMin:
    case Reduce::ArgMax:
    case Reduce::Any:
    case Reduce::All: return in;
    default: break;
  }
  return is_half(r) ? DType::Float32 : r;
}

DType dtype_for_char(char c) {
  switch (c) {
    case '?': return DType::Bool;
    case 'b': return DType::Int8;
    case 'B': return DType::UInt8;
    case 'h': return DType::Int16;
    case 'H': return DType::UInt16;
    case 'i': return DType::Int32;
    case 'I': return DType::UInt32;
    case 'q': return DType::Int64;
    case 'Q': return DType::UInt64;
    case 'e': return DType::Float16;
    case 'E': return DType::BFloat16;
    case 'f': return DType::Float32;
    case 'd': return DType::Float64;
    case 'F': return DType::Complex64;
    default: return DType::Complex128;
  }
}

}  // namespace cujit

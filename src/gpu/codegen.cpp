#include "gpu/codegen.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string_view>

#include "lang/check.hpp"
#include "cujit/array.hpp"
#include "core/fail.hpp"
#include "core/names.hpp"
#include "core/scalar.hpp"
#include "gpu/layouts/layout_codegen.hpp"
#include "plan/layouts/layout_rule.hpp"
#include "plan/reduce_plan.hpp"
#include "gpu/templates.hpp"

namespace cujit {

// The C type a value of this dtype is computed in (16-bit floats: float).
std::string ctype(DType t) {
  switch (t) {
#define DTYPE(Id, name, size, Host, Compute, ...) \
  case DType::Id:                                 \
    return #Compute;
#include "core/dtypes.def"
#undef DTYPE
  }
  return "?";
}

// The C type an element of this dtype is stored as in memory and in kernel arguments.
std::string stype(DType t) {
  switch (t) {
#define DTYPE(Id, name, size, Host, Compute, Store, ...) \
  case DType::Id:                                        \
    return #Store;
#include "core/dtypes.def"
#undef DTYPE
  }
  return "?";
}

namespace {

// ---------------------------------------------------------------------------
// Types and literals.

enum Group { kPrelude, kHalf, kIntOps, kMath, kCast, kComplex, kComplexMath, kChecks, kNumGroups };
constexpr const char* kGroupFile[kNumGroups] = {"prelude.cuh", "half.cuh",    "int_ops.cuh",      "math.cuh",
                                                "cast.cuh",    "complex.cuh", "complex_math.cuh", "checks.cuh"};


DType compute_dtype(DType t) { return is_half(t) ? DType::Float32 : t; }

std::string paren_neg(std::string s) { return !s.empty() && s[0] == '-' ? "(" + s + ")" : s; }

std::string lit_f32(float f) {
  if (!std::isfinite(f)) return fmt::format("__uint_as_float(0x{:08x}u)", f32_bits(f));
  std::string s = fmt::format("{}", f);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return paren_neg(s + "f");
}

std::string lit_f64(double d) {
  if (!std::isfinite(d)) {
    std::uint64_t b;
    std::memcpy(&b, &d, 8);
    return fmt::format("__longlong_as_double((long long)0x{:016x}ULL)", b);
  }
  std::string s = fmt::format("{}", d);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return paren_neg(s);
}

std::string lit_int(std::int64_t v, DType t) {
  switch (t) {
    case DType::Int8: case DType::Int16: case DType::UInt8: case DType::UInt16:
      return "(" + ctype(t) + ")" + paren_neg(std::to_string(v));
    case DType::Int32:
      if (v == -2147483648LL) return "(-2147483647 - 1)";
      return paren_neg(std::to_string(v));
    case DType::Int64:
      if (v == std::numeric_limits<std::int64_t>::min()) return "(-9223372036854775807LL - 1)";
      return paren_neg(std::to_string(v) + "LL");
    default: return "?";
  }
}

std::string emit(bool v) { return v ? "true" : "false"; }
std::string emit(std::int8_t v) { return lit_int(v, DType::Int8); }
std::string emit(std::int16_t v) { return lit_int(v, DType::Int16); }
std::string emit(std::int32_t v) { return lit_int(v, DType::Int32); }
std::string emit(std::int64_t v) { return lit_int(v, DType::Int64); }
std::string emit(std::uint8_t v) { return lit_int(v, DType::UInt8); }
std::string emit(std::uint16_t v) { return lit_int(v, DType::UInt16); }
std::string emit(std::uint32_t v) { return std::to_string(v) + "u"; }
std::string emit(std::uint64_t v) { return std::to_string(v) + "ULL"; }
std::string emit(scalar::Half v) { return lit_f32(half_to_float(v.bits)); }
std::string emit(scalar::BF16 v) { return lit_f32(bfloat16_to_float(v.bits)); }
std::string emit(float v) { return lit_f32(v); }
std::string emit(double v) { return lit_f64(v); }
std::string emit(std::complex<float> v) { return "cj::cpack(" + lit_f32(v.real()) + ", " + lit_f32(v.imag()) + ")"; }
std::string emit(std::complex<double> v) { return "cj::cpack(" + lit_f64(v.real()) + ", " + lit_f64(v.imag()) + ")"; }


template <class T> T value_as(const Value& v) {
  using scalar::cast;
  if (v.kind == Value::Bool) return cast<T>(v.b);
  if (v.kind == Value::Int) return v.big ? cast<T>(v.u) : cast<T>(v.i);
  if (v.kind == Value::Float) return cast<T>(v.f);
  return cast<T>(v.c);
}

// The dtype of the value an expression evaluates to (an integer literal above
// INT64_MAX is a uint64, as the CPU evaluator reads it).
DType value_dtype(const Expr& e) {
  if (e.folded && e.value.kind == Value::Int && e.value.big) return DType::UInt64;
  return e.type;
}


std::string join(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (std::size_t k = 0; k < v.size(); ++k) s += (k ? sep : "") + v[k];
  return s;
}

// Comments carry user text: keep it on one line and free of line splices,
// including the trigraph `??/` (a backslash before C++17, should a user's
// NVRTC options ask for an older standard).
std::string comment_text(std::string_view s) {
  std::string out;
  for (char c : s) {
    if (c == '\n' || c == '\r' || c == '\t') out += ' ';
    else if (c == '\\') out += '/';
    else if (static_cast<unsigned char>(c) < 0x20 || static_cast<unsigned char>(c) >= 0x7f) out += '?';
    else if (c == '?' && !out.empty() && out.back() == '?') out += " ?";
    else out += c;
  }
  while (!out.empty() && out.back() == ' ') out.pop_back();
  return out;
}

const char* access_name(Access a) {
  switch (a) {
    case Access::Contig: return "contiguous";
    case Access::Strided: return "strided";
    case Access::Uniform: return "one element, broadcast";
    case Access::Value: return "by value";
    case Access::Raw: return "raw";
    case Access::RowScalar: return "one element per row, broadcast along it";
    case Access::Tiled: return "transposed, through shared-memory tiles";
  }
  return "?";
}


// ---------------------------------------------------------------------------
// The statements of one element.

class BodyGen {
 public:
  BodyGen(const Program& p) : p_(p), in_used_(p.inputs.size(), false), size_used_(p.inputs.size(), false) {
    use(kPrelude);
    // Every parameter's type is named in the kernel's signature, read or not
    // (`r = x` with a complex y needs cj::c128 declared).
    for (const Param& q : p_.inputs) note_type(q.dtype);
    for (const Var& v : p_.outputs) note_type(v.dtype);
  }

  void run() {
    for (const Stmt& s : p_.ast.stmts) {
      bool local = s.sym == Sym::Local;
      const Var& v = local ? p_.locals[static_cast<std::size_t>(s.slot)] : p_.outputs[static_cast<std::size_t>(s.slot)];
      note_type(v.dtype);
      std::string code = value_in(*s.expr, v.dtype);
      std::string line = local ? "const " + ctype(v.dtype) + " " + val_name(v.name) + " = " + code + ";"
                               : out_val(v) + " = " + code + ";";
      lines_.push_back(line + "  // " + comment_text(std::string_view(p_.ast.source).substr(s.span.begin, s.span.end - s.span.begin)));
    }
  }

  void use(Group g) {
    groups_[g] = true;
    if (g == kComplex) groups_[kMath] = true;
    if (g == kComplexMath) groups_[kComplex] = groups_[kMath] = true;
  }
  void note_type(DType t) {
    if (is_half(t)) use(kHalf);
    if (is_complex(t)) use(kComplex);
  }

  // A value of dtype `from` in compute representation, converted by the cast
  // of the language (templates/cast.cuh, which the CPU evaluator calls too).
  std::string conv(const std::string& c, DType from, DType to) {
    note_type(from);
    note_type(to);
    if (from == to) return c;
    use(kCast);
    std::string target = to == DType::Float16 ? "cj::f16_tag" : to == DType::BFloat16 ? "cj::bf16_tag" : ctype(to);
    return "cj::cast<" + target + ">(" + c + ")";
  }

  // A constant in compute representation of `to`: converted on the host with
  // src/scalar.hpp's casts, so it is exactly the CPU evaluator's value.
  std::string const_in(const Expr& e, DType to) {
    note_type(to);
    std::string out;
    scalar::visit(to, [&](auto tt) { out = emit(folded_as<decltype(tt)>(e)); });
    return out;
  }
  // A folded constant's value in C type T, as const_in emits it.
  template <class T> static T folded_as(const Expr& e) {
    T out{};
    scalar::visit(value_dtype(e), [&](auto ft) { out = scalar::cast<T>(value_as<decltype(ft)>(e.value)); });
    return out;
  }

  // An expression's value converted to `to` (a statement's store, a cast, an index).
  std::string value_in(const Expr& e, DType to) {
    if (e.folded) return const_in(e, to);
    if (clip_cast_applies(e, to)) return clip_cast(e, to);
    return conv(gen(e), value_dtype(e), to);
  }

  // uint8(clip(v, lo, hi)) and uint16(...) of a float32 v with constant
  // bounds, as image programs end: the clip's NaN-keeping selects and the
  // cast's own clamp are one clamp (templates/cast.cuh, cj::clip_cast), the
  // same values: a NaN, which the cast makes 0, clamps to lo < 1, which
  // truncates to 0 as well. Such programs are bound by the GPU's ALU pipe on
  // an H200, which this takes three instructions of about nine per byte off.
  static bool clip_cast_applies(const Expr& e, DType to) {
    if ((to != DType::UInt8 && to != DType::UInt16) || e.kind != Expr::Call || e.op != Op::Clip ||
        e.op_type != DType::Float32 || e.type != DType::Float32 || !e.args[1]->folded || !e.args[2]->folded)
      return false;
    const float lo = folded_as<float>(*e.args[1]), hi = folded_as<float>(*e.args[2]);
    return std::isfinite(lo) && std::isfinite(hi) && lo < 1.f && lo <= hi && hi >= 0.f;
  }
  std::string clip_cast(const Expr& e, DType to) {
    use(kCast);
    note_type(to);
    return "cj::clip_cast<" + ctype(to) + ">(" + operand(*e.args[0], DType::Float32) + ", " +
           const_in(*e.args[1], DType::Float32) + ", " + const_in(*e.args[2], DType::Float32) + ")";
  }

  // An operand of an operation: as value_in, and a weak integer must fit the
  // integer type it converts to (the CPU evaluator's run-time check).
  std::string operand(const Expr& a, DType to) {
    if (a.folded) return const_in(a, to);
    std::string c = gen(a);
    DType from = value_dtype(a);
    if (a.fit) {
      use(kChecks);
      uses_err_ = true;
      c = "cj::fit<" + ctype(to) + ">(" + c + ", " + std::to_string(static_cast<int>(to)) + ", cj_err)";
    }
    return conv(c, from, to);
  }

  std::string gen(const Expr& e) {
    note_type(e.type);
    if (e.folded) return const_in(e, value_dtype(e));
    switch (e.kind) {
      case Expr::Literal: return const_in(e, value_dtype(e));
      case Expr::Name: return name(e);
      case Expr::Unary: return apply(e);
      case Expr::Binary: return binary(e);
      case Expr::Ternary: return select(e, *e.args[0], *e.args[1], *e.args[2]);
      case Expr::Call: return call(e);
      case Expr::Index: return index(e);
    }
    fail(ErrorCode::Internal, "codegen: unknown expression kind");
  }

  std::string name(const Expr& e) {
    switch (e.sym) {
      case Sym::Input: {
        std::size_t k = static_cast<std::size_t>(e.slot);
        in_used_[k] = true;
        return val_name(p_.inputs[k].name);
      }
      case Sym::Local: return val_name(p_.locals[static_cast<std::size_t>(e.slot)].name);
      case Sym::Output: return out_val(p_.outputs[static_cast<std::size_t>(e.slot)]);
      case Sym::Index: uses_index_ = true; return "cj_i";
      case Sym::Count: uses_index_ = true; return "cj_n";
      default: return const_in(e, value_dtype(e));
    }
  }

  std::string binary(const Expr& e) {
    const Expr& a = *e.args[0];
    const Expr& b = *e.args[1];
    DType ta = value_dtype(a), tb = value_dtype(b);
    // int64 against uint64 (check's Expr::mixed_compare): compared exactly.
    if (e.mixed_compare) {
      use(kIntOps);
      std::string x = value_in(a, is_signed_int(ta) ? DType::Int64 : DType::UInt64);
      std::string y = value_in(b, is_signed_int(tb) ? DType::Int64 : DType::UInt64);
      const char* fn = e.op == Op::Lt ? "cmp_lt" : e.op == Op::Le ? "cmp_le" : e.op == Op::Gt ? "cmp_gt"
                     : e.op == Op::Ge ? "cmp_ge" : e.op == Op::Eq ? "cmp_eq" : "cmp_ne";
      return conv(std::string("cj::") + fn + "(" + x + ", " + y + ")", DType::Bool, e.type);
    }
    return apply(e);
  }

  // An operation of ops.def: a call of its template function on operands
  // converted to its loop's type.
  std::string apply(const Expr& e) {
    std::vector<std::string> a;
    for (const auto& arg : e.args) a.push_back(operand(*arg, e.op_type));
    // NumPy raises for an integer to a negative integer power: the kernel reports it (a literal exponent is the checker's).
    if (e.nonneg_exponent) {
      use(kChecks);
      uses_err_ = true;
      a[1] = "cj::nonneg_exponent(" + a[1] + ", cj_err)";
    }
    auto [code, rdt] = op_code(*e.builtin, e.op_type, a);
    return conv(code, rdt, e.type);
  }

  std::string select(const Expr& e, const Expr& c, const Expr& x, const Expr& y) {
    std::string cond = value_in(c, DType::Bool);
    std::string a = operand(x, e.op_type), b = operand(y, e.op_type);
    return conv("cj::select(" + cond + ", " + a + ", " + b + ")", e.op_type, e.type);
  }

  std::string call(const Expr& e) {
    const Builtin& b = *e.builtin;
    switch (b.special) {
      case Special::Cast: return value_in(*e.args[0], e.type);
      case Special::Size: {
        std::size_t k = static_cast<std::size_t>(e.args[0]->slot);
        size_used_[k] = true;
        return size_name(p_.inputs[k].name);
      }
      case Special::Where: return select(e, *e.args[0], *e.args[1], *e.args[2]);
      default: return apply(e);
    }
  }

  std::string index(const Expr& e) {
    std::size_t k = static_cast<std::size_t>(e.args[0]->slot);
    const Param& q = p_.inputs[k];
    in_used_[k] = true;
    use(kChecks);
    uses_err_ = true;
    std::string j = value_in(*e.args[1], DType::Int64);
    std::string load = "cj::raw_at(" + ptr_name(q.name) + ", " + size_name(q.name) + ", " + j + ", " +
                       std::to_string(k) + ", cj_err)";
    return load_value(q.dtype, load);
  }

  // Storage -> compute representation.
  std::string load_value(DType t, const std::string& c) {
    if (t == DType::Bool) return "(" + c + " != 0)";  // NumPy's rule: any nonzero byte is True
    if (t == DType::Float16) { use(kHalf); return "cj::h2f(" + c + ")"; }
    if (t == DType::BFloat16) { use(kHalf); return "cj::b2f(" + c + ")"; }
    note_type(t);
    return c;
  }
  std::string store_value(DType t, const std::string& c) {
    if (t == DType::Float16) { use(kHalf); return "cj::f2h(" + c + ")"; }
    if (t == DType::BFloat16) { use(kHalf); return "cj::f2b(" + c + ")"; }
    return c;
  }

  // The call of one operation on operands already in the compute type of
  // `ot`, and the dtype of its result: the loop's, in compute representation
  // (float32 for an unrounded 16-bit float result) unless ops.def marks the
  // result exact in the operand type.
  std::pair<std::string, DType> op_code(const Builtin& b, DType ot, const std::vector<std::string>& a) {
    use(kMath);
    if (is_integer(ot)) use(kIntOps);
    if (is_complex(ot)) use(b.has('M') ? kComplexMath : kComplex);
    std::string args = join(a, ", ");
    if (b.has('h') && is_half(ot)) args += ot == DType::Float16 ? ", cj::f16_tag()" : ", cj::bf16_tag()";
    DType r = b.loop_result(ot);
    return {"cj::" + std::string(b.impl) + "(" + args + ")", b.has('=') ? r : compute_dtype(r)};
  }

  const Program& p_;
  bool groups_[kNumGroups] = {};
  std::vector<bool> in_used_, size_used_;
  bool uses_err_ = false, uses_index_ = false;
  std::vector<std::string> lines_;
};

}  // namespace

// ---------------------------------------------------------------------------
// The ABI.

namespace {
std::size_t value_align(DType t) { return dtype_size(t); }
}  // namespace

std::vector<ArgSlot> kernel_signature(const Program& p, const KernelLayout& l) {
  validate_layout(p, l);
  BodyGen g(p);
  g.run();
  std::vector<ArgSlot> s;
  for (std::size_t k = 0; k < p.outputs.size(); ++k)
    s.push_back({ArgSlot::Kind::Output, static_cast<int>(k), p.outputs[k].dtype, 8, 8, out_ptr(p.outputs[k])});
  for (std::size_t k = 0; k < p.inputs.size(); ++k) {
    const Param& q = p.inputs[k];
    int op = static_cast<int>(k);
    switch (l.inputs[k]) {
      case Access::Value:
        s.push_back({ArgSlot::Kind::InputValue, op, q.dtype, dtype_size(q.dtype), value_align(q.dtype), arg_name(q.name)});
        break;
      case Access::Raw:
        s.push_back({ArgSlot::Kind::RawData, op, q.dtype, 8, 8, ptr_name(q.name)});
        s.push_back({ArgSlot::Kind::Size, op, DType::Int64, 8, 8, size_name(q.name)});
        break;
      default: s.push_back({ArgSlot::Kind::Input, op, q.dtype, 8, 8, ptr_name(q.name)}); break;
    }
    if (l.inputs[k] != Access::Raw && g.size_used_[k])
      s.push_back({ArgSlot::Kind::Size, op, DType::Int64, 8, 8, size_name(q.name)});
  }
  s.push_back({ArgSlot::Kind::Count, -1, DType::Int64, 8, 8, "cj_n"});
  if (layout_rule(l.kind).layout_arg) {
    std::size_t nstrided = 0;
    for (Access a : l.outputs) nstrided += has_strides(a);
    for (Access a : l.inputs) nstrided += has_strides(a);
    std::size_t w = l.index64 ? 8 : 4, per_dim = l.index64 ? 1 : 3;  // 32-bit: extent, magic, shift
    // Rows: the inner extent and the row count, then the outer dimensions.
    const bool rows = layout_rule(l.kind).row_header;
    std::size_t nd = static_cast<std::size_t>(l.ndim) - (rows ? 1 : 0);
    s.push_back({ArgSlot::Kind::Layout, -1, DType::Int64, w * ((rows ? 2 : 0) + nd * (per_dim + nstrided)), w, "cj_l"});
  }
  if (g.uses_err_) s.push_back({ArgSlot::Kind::Error, -1, DType::Int64, 8, 8, "cj_err"});
  return s;
}

std::string kernel_error_message(const Program& p, const std::int64_t err[4]) {
  if (err[0] == 1) {
    std::size_t k = static_cast<std::size_t>(err[1]);
    std::string name = k < p.inputs.size() ? p.inputs[k].name : "?";
    return fmt::format("index {} is out of bounds for raw parameter '{}' of size {}", err[2], name, err[3]);
  }
  if (err[0] == 2) {
    int t = static_cast<int>(err[1]);
    std::string_view ty = t >= 0 && t < kNumDTypes ? dtype_name(static_cast<DType>(t)) : "?";
    return fmt::format("scalar value {} does not fit in {}", err[2], ty);
  }
  if (err[0] == 3) return negative_power_message(err[2]);
  return fmt::format("kernel reported unknown failure {}", err[0]);
}

void check_source_names(const Program& p, const std::string& kernel_name) {
  // The only user text the source holds besides numbers cujit printed: names,
  // each checked here once more, whatever way in checked it first.
  check_name(kernel_name, "kernel name");
  // The reduction plan's own names (a user's cannot start with '_').
  for (const Param& q : p.inputs)
    if (!plan::is_derived_name(q.name)) check_name(q.name, "input");
  for (const Var& v : p.outputs)
    if (!plan::is_derived_name(v.name)) check_name(v.name, "output");
  for (const Var& v : p.locals) check_name(v.name, "local");
}

namespace {

// The element function's parameters and arguments, and every operand's lines
// (the layout's hooks for those it reaches through a pointer).
struct ElementCall {
  std::vector<std::string> params, args;
};

ElementCall operand_parts(BodyGen& g, KernelParts& k, const LayoutCodegen& unit) {
  const Program& p = k.p;
  const KernelLayout& l = k.l;
  ElementCall e;
  if (g.uses_index_) {
    e.params.insert(e.params.end(), {"const long long cj_i", "const long long cj_n"});
    e.args.insert(e.args.end(), {"(long long)cj_k", "cj_n"});
  }
  for (std::size_t i = 0; i < p.inputs.size(); ++i) {
    const Param& q = p.inputs[i];
    const Access a = l.inputs[i];
    if (a == Access::Raw) {
      if (g.in_used_[i] || g.size_used_[i]) {
        e.params.push_back("const " + stype(q.dtype) + "* " + ptr_name(q.name));
        e.params.push_back("const long long " + size_name(q.name));
        e.args.push_back(ptr_name(q.name));
        e.args.push_back(size_name(q.name));
      }
      continue;
    }
    if (g.in_used_[i]) {
      std::string decl = "const " + ctype(q.dtype) + " " + val_name(q.name) + " = ";
      e.params.push_back("const " + ctype(q.dtype) + " " + val_name(q.name));
      e.args.push_back(val_name(q.name));
      if (a == Access::Value) k.setup.push_back(decl + g.load_value(q.dtype, arg_name(q.name)) + ";");
      else if (a == Access::Uniform) k.setup.push_back(decl + g.load_value(q.dtype, ptr_name(q.name) + "[0]") + ";");
      else unit.input(k, q, a, decl);
    }
    if (g.size_used_[i]) {
      e.params.push_back("const long long " + size_name(q.name));
      e.args.push_back(size_name(q.name));
    }
  }
  for (std::size_t o = 0; o < p.outputs.size(); ++o) {
    const Var& v = p.outputs[o];
    e.params.push_back(ctype(v.dtype) + "& " + out_val(v));
    e.args.push_back(out_val(v));
    k.load.push_back(ctype(v.dtype) + " " + out_val(v) + ";");
    unit.output(k, v, l.outputs[o]);
  }
  if (g.uses_err_) {
    e.params.push_back("long long* cj_err");
    e.args.push_back("cj_err");
  }
  return e;
}

// The kernel's header comment: the program, the operands, the layout.
std::string header_text(const Program& p, const KernelLayout& l, const BodyGen& g, const LayoutCodegen& unit,
                        std::map<std::string, std::string>& vars) {
  std::vector<std::string> prog, ops;
  std::string_view src = p.ast.source;
  for (std::size_t pos = 0; pos <= src.size();) {
    std::size_t e = src.find('\n', pos);
    std::string t = comment_text(src.substr(pos, e == std::string_view::npos ? std::string_view::npos : e - pos));
    if (!t.empty()) prog.push_back("//   " + t);
    if (e == std::string_view::npos) break;
    pos = e + 1;
  }
  for (std::size_t k = 0; k < p.outputs.size(); ++k)
    ops.push_back(fmt::format("// output {}: {}, {}{}", p.outputs[k].name, dtype_name(p.outputs[k].dtype), access_name(l.outputs[k]),
                              p.outputs[k].input >= 0 ? " (the input updated in place)" : ""));
  for (std::size_t k = 0; k < p.inputs.size(); ++k) {
    const Param& q = p.inputs[k];
    ops.push_back(fmt::format("// input {}: {}{}, {}{}", q.name, q.weak ? "weak " : "", dtype_name(q.dtype), access_name(l.inputs[k]),
                              g.in_used_[k] || g.size_used_[k] ? "" : " (unused)"));
  }
  vars["PROGRAM"] = join(prog, "\n");
  vars["OPERANDS"] = join(ops, "\n");
  vars["LAYOUT"] = l.key_string() + " (" + unit.describe(l) + ", " + (l.index64 ? "64" : "32") + "-bit index)";
  std::string header = render_template(template_text("header.cu"), vars);
  while (!header.empty() && header.back() == '\n') header.pop_back();
  return header;
}

// Each parameter of the signature as the kernel declares it.
std::string params_text(const std::vector<ArgSlot>& sig) {
  std::vector<std::string> params;
  for (const ArgSlot& a : sig) {
    switch (a.kind) {
      case ArgSlot::Kind::Output: params.push_back(stype(a.dtype) + "* " + a.name); break;
      case ArgSlot::Kind::Input:
      case ArgSlot::Kind::RawData: params.push_back("const " + stype(a.dtype) + "* " + a.name); break;
      case ArgSlot::Kind::InputValue: params.push_back("const " + stype(a.dtype) + " " + a.name); break;
      case ArgSlot::Kind::Size:
      case ArgSlot::Kind::Count: params.push_back("const long long " + a.name); break;
      case ArgSlot::Kind::Layout: params.push_back("const cj_layout " + a.name); break;
      case ArgSlot::Kind::Error: params.push_back("long long* " + a.name); break;
    }
  }
  return join(params, ", ");
}

}  // namespace

// The layout's unit (gpu/layouts/) fills the operands' lines and its
// template's placeholders; the rest is the same for every layout.
std::string generate_source(const Program& p, const KernelLayout& l, const std::string& kernel_name) {
  if (p.has_reductions)
    fail(ErrorCode::Usage, "a program with reductions (sum, mean, max, ...) runs as several kernels, one or more per "
                           "pass, planned from its input shapes, not as one elementwise kernel: precompile it from a "
                           "manifest entry with shapes = [{ x = [1000] }] (jitcache precompile), or see its kernels "
                           "with jitrun --emit");
  check_source_names(p, kernel_name);
  validate_layout(p, l);
  BodyGen g(p);
  g.run();
  const LayoutCodegen& unit = layout_codegen(l.kind);
  KernelParts k(p, l, [&g](DType t, const std::string& c) { return g.load_value(t, c); },
                [&g](DType t, const std::string& c) { return g.store_value(t, c); });
  k.uses_index = g.uses_index_;
  for (std::size_t o = 0; o < p.outputs.size(); ++o)
    if (has_strides(l.outputs[o]))
      k.row[out_ptr(p.outputs[o])] = static_cast<int>(k.strided_names.size()),
      k.strided_names.push_back(p.outputs[o].name + (p.outputs[o].input >= 0 ? " (updated)" : ""));
  for (std::size_t i = 0; i < p.inputs.size(); ++i)
    if (has_strides(l.inputs[i]))
      k.row[ptr_name(p.inputs[i].name)] = static_cast<int>(k.strided_names.size()), k.strided_names.push_back(p.inputs[i].name);
  const ElementCall call = operand_parts(g, k, unit);

  std::map<std::string, std::string> vars;
  vars["KERNEL_NAME"] = kernel_name;
  const std::string header = header_text(p, l, g, unit, vars);
  std::vector<std::string> helpers;
  for (int h = 0; h < kNumGroups; ++h)
    if (g.groups_[h]) {
      std::string t = template_text(kGroupFile[h]);
      while (!t.empty() && t.back() == '\n') t.pop_back();
      helpers.push_back(t);
    }
  vars["ELEMENT_PARAMS"] = join(call.params, ", ");
  vars["BODY"] = join(g.lines_, "\n");
  std::string element = render_template(template_text("element.cu"), vars);
  while (!element.empty() && element.back() == '\n') element.pop_back();

  vars["HEADER"] = header;
  vars["HELPERS"] = join(helpers, "\n\n");
  vars["ELEMENT"] = element;
  vars["PARAMS"] = params_text(kernel_signature(p, l));
  vars["INDEX_T"] = l.index64 ? "unsigned long long" : "unsigned int";
  vars["SETUP"] = join(k.setup, "\n");
  vars["LOAD"] = join(k.load, "\n");
  vars["CALL"] = "cj_element(" + join(call.args, ", ") + ");";
  vars["STORE"] = join(k.store, "\n");
  const std::string file = unit.render(k, vars);
  return render_template(template_text(file), vars);
}

namespace {
// Whether `e` reads only array inputs: what a fused map's kernel has.
bool reads_only_arrays(const Program& p, const Expr& e) {
  if (e.folded || e.kind == Expr::Literal) return true;
  if (e.kind == Expr::Index) return false;
  if (e.kind == Expr::Call && e.builtin && e.builtin->special == Special::Size) return false;
  if (e.kind == Expr::Name) {
    if (e.sym == Sym::Input) {
      const Param& q = p.inputs[static_cast<std::size_t>(e.slot)];
      return !q.weak && !q.raw && !is_complex(q.dtype);
    }
    return e.sym != Sym::Local && e.sym != Sym::Output && e.sym != Sym::Index && e.sym != Sym::Count;
  }
  for (const auto& a : e.args)
    if (!reads_only_arrays(p, *a)) return false;
  return true;
}
}  // namespace

FusedMap fused_map(const Program& p, const Expr& e, DType to) {
  FusedMap m;
  if (!reads_only_arrays(p, e)) return m;
  BodyGen g(p);
  std::string code = g.value_in(e, to);
  if (g.uses_err_ || g.uses_index_) return m;
  for (std::size_t k = 0; k < p.inputs.size(); ++k)
    if (g.in_used_[k]) m.inputs.push_back(static_cast<int>(k));
  for (int h = 0; h < kNumGroups; ++h)
    if (g.groups_[h] && h != kPrelude && h != kHalf) m.helpers += template_text(kGroupFile[h]) + "\n";
  m.expr = std::move(code);
  return m;
}

}  // namespace cujit

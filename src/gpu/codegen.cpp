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
#include "fail.hpp"
#include "names.hpp"
#include "scalar.hpp"
#include "gpu/templates.hpp"

namespace cujit {

namespace {

// ---------------------------------------------------------------------------
// Types and literals.

enum Group { kPrelude, kHalf, kIntOps, kMath, kCast, kComplex, kComplexMath, kChecks, kNumGroups };
constexpr const char* kGroupFile[kNumGroups] = {"prelude.cuh", "half.cuh",    "int_ops.cuh",      "math.cuh",
                                                "cast.cuh",    "complex.cuh", "complex_math.cuh", "checks.cuh"};

// The C type a value of this dtype is computed in (16-bit floats: float).
std::string ctype(DType t) {
  switch (t) {
    case DType::Bool: return "bool";
    case DType::Int8: return "cj_i8";
    case DType::Int16: return "cj_i16";
    case DType::Int32: return "cj_i32";
    case DType::Int64: return "cj_i64";
    case DType::UInt8: return "cj_u8";
    case DType::UInt16: return "cj_u16";
    case DType::UInt32: return "cj_u32";
    case DType::UInt64: return "cj_u64";
    case DType::Float16:
    case DType::BFloat16:
    case DType::Float32: return "float";
    case DType::Float64: return "double";
    case DType::Complex64: return "cj::c64";
    case DType::Complex128: return "cj::c128";
  }
  return "?";
}

// The C type an element of this dtype is stored as in memory and in kernel arguments.
std::string stype(DType t) { return is_half(t) ? "cj_u16" : ctype(t); }

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

bool is_cmp(Op op) { return op >= Op::Lt && op <= Op::Ne; }

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

// Names in the source: user names get a prefix, so that they can never clash
// with C++ keywords or cujit's own names (cj_*, loop variables).
std::string val_name(const std::string& n) { return "v_" + n; }
std::string ptr_name(const std::string& n) { return "p_" + n; }
std::string arg_name(const std::string& n) { return "s_" + n; }
std::string size_name(const std::string& n) { return "z_" + n; }
// An in/out parameter (`x *= 5`) is an input, read once at the top, and an
// output, written once at the end: its output side has its own prefixes, so
// that the element function sees the input value v_x and the new value w_x.
std::string out_val(const Var& v) { return (v.input >= 0 ? "w_" : "v_") + v.name; }
std::string out_ptr(const Var& v) { return (v.input >= 0 ? "q_" : "p_") + v.name; }
std::string out_vec(const Var& v) { return (v.input >= 0 ? "b_" : "a_") + v.name; }

// ---------------------------------------------------------------------------
// The statements of one element.

class BodyGen {
 public:
  BodyGen(const Program& p) : p_(p), in_used_(p.inputs.size(), false), size_used_(p.inputs.size(), false) {
    use(kPrelude);
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
    scalar::visit(value_dtype(e), [&](auto ft) {
      using F = decltype(ft);
      F x = value_as<F>(e.value);
      scalar::visit(to, [&](auto tt) {
        using T = decltype(tt);
        out = emit(scalar::cast<T>(x));
      });
    });
    return out;
  }

  // An expression's value converted to `to` (a statement's store, a cast, an index).
  std::string value_in(const Expr& e, DType to) {
    if (e.folded) return const_in(e, to);
    return conv(gen(e), value_dtype(e), to);
  }

  // An operand of an operation: as value_in, and a weak integer must fit the
  // integer type it converts to (the CPU evaluator's run-time check).
  std::string operand(const Expr& a, DType to) {
    if (a.folded) return const_in(a, to);
    std::string c = gen(a);
    DType from = value_dtype(a);
    if (a.weak && is_integer(to) && from == DType::Int64 && to != DType::Int64) {
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
    // int64 against uint64: NumPy compares exactly, with no common dtype. (A
    // literal above INT64_MAX is a uint64 value and compares in uint64.)
    if (is_cmp(e.op) && is_integer(ta) && is_integer(tb) && is_signed_int(ta) != is_signed_int(tb) &&
        (ta == DType::UInt64 || tb == DType::UInt64)) {
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

// Whether a program can record a failure at run time: raw indexing, or a weak
// integer that must fit an operation's integer type. (The generator decides
// the same thing while it writes the body.)
bool can_fail(const Program& p) {
  BodyGen g(p);
  g.run();
  return g.uses_err_;
}

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
  if (l.kind != KernelLayout::Kind::Contiguous) {
    std::size_t nstrided = 0;
    for (Access a : l.outputs) nstrided += has_strides(a);
    for (Access a : l.inputs) nstrided += has_strides(a);
    std::size_t w = l.index64 ? 8 : 4, per_dim = l.index64 ? 1 : 3;  // 32-bit: extent, magic, shift
    // Rows: the inner extent and the row count, then the outer dimensions.
    const bool rows = l.kind == KernelLayout::Kind::Rows;
    std::size_t nd = static_cast<std::size_t>(l.ndim) - (rows ? 1 : 0);
    s.push_back({ArgSlot::Kind::Layout, -1, DType::Int64, w * ((rows ? 2 : 0) + nd * (per_dim + nstrided)), w, "cj_l"});
  }
  if (g.uses_err_) s.push_back({ArgSlot::Kind::Error, -1, DType::Int64, 8, 8, "cj_err"});
  return s;
}

bool needs_error_slot(const Program& p) { return can_fail(p); }

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
  return fmt::format("kernel reported unknown failure {}", err[0]);
}

void check_source_names(const Program& p, const std::string& kernel_name) {
  // The only user text the source holds besides numbers cujit printed: names,
  // each checked here once more, whatever way in checked it first.
  check_name(kernel_name, "kernel name");
  for (const Param& q : p.inputs) check_name(q.name, "input");
  for (const Var& v : p.outputs) check_name(v.name, "output");
  for (const Var& v : p.locals) check_name(v.name, "local");
}

std::string generate_source(const Program& p, const KernelLayout& l, const std::string& kernel_name) {
  if (p.has_reductions)
    fail(ErrorCode::Usage, "reductions (sum, mean, max, ...) run on the CPU evaluator so far: evaluate on host "
                           "arrays, or with jitrun --device cpu");
  check_source_names(p, kernel_name);
  validate_layout(p, l);
  BodyGen g(p);
  g.run();
  const bool strided = l.kind == KernelLayout::Kind::Strided;
  const bool rows = l.kind == KernelLayout::Kind::Rows;
  const bool tiles = l.kind == KernelLayout::Kind::Tiles;
  const bool vector = l.kind == KernelLayout::Kind::Contiguous && l.vec > 1;
  std::vector<ArgSlot> sig = kernel_signature(p, l);

  // Kernel parameters.
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

  // Strided operands in ABI order, and each one's row in the layout argument
  // (by pointer name: an in/out parameter has two, one per side).
  std::vector<std::string> strided_names;
  std::map<std::string, int> row;
  for (std::size_t k = 0; k < p.outputs.size(); ++k)
    if (has_strides(l.outputs[k]))
      row[out_ptr(p.outputs[k])] = static_cast<int>(strided_names.size()),
      strided_names.push_back(p.outputs[k].name + (p.outputs[k].input >= 0 ? " (updated)" : ""));
  for (std::size_t k = 0; k < p.inputs.size(); ++k)
    if (has_strides(l.inputs[k]))
      row[ptr_name(p.inputs[k].name)] = static_cast<int>(strided_names.size()), strided_names.push_back(p.inputs[k].name);

  // The helpers below take an operand's pointer name (p_x, or q_x for the
  // output side of an in/out parameter).
  auto offset = [&](const std::string& ptr) { return "cj::at(" + ptr + ", cj_o[" + std::to_string(row[ptr]) + "])"; };
  // Rows: a row-contiguous operand's elements from its row's start: e_x for
  // p_x, f_x for the output side q_x of an in/out parameter.
  auto row_ptr = [&](const std::string& ptr) { return (ptr[0] == 'q' ? "f_" : "e_") + ptr.substr(2); };
  // Tiles: a vector of a thread's block row, and the bytes where that row
  // starts in an operand (e_x, f_x as in rows layouts).
  const std::string last = std::to_string(l.ndim - 1), second = std::to_string(l.ndim - 2);
  auto tile_vec = [](DType t, int n) { return "cj_tv<" + stype(t) + ", " + std::to_string(n) + ">::t"; };
  auto tile_row = [&](const std::string& ptr, bool in) {
    std::string s = std::to_string(row[ptr]), c = in ? "const " : "";
    return c + "char* const " + row_ptr(ptr) + " = reinterpret_cast<" + c + "char*>(" + ptr + ") + cj_o[" + s +
           "] + (cj_off)cj_rr * cj_l.stride[" + s + "][" + second + "] + (cj_off)(cj_V * cj_cv) * cj_l.stride[" + s + "][" +
           last + "];";
  };
  auto elem_ref = [&](const std::string& ptr, Access a) {  // the element of a Contig/Strided operand at k
    if (rows) return row_ptr(ptr) + "[cj_kc]";
    if (a == Access::Strided) return offset(ptr);
    return ptr + "[cj_k]";
  };
  auto vec_base = [&](const std::string& ptr) { return rows ? row_ptr(ptr) : ptr; };
  auto vec_type = [&](DType t) {
    std::size_t bytes = static_cast<std::size_t>(l.vec) * dtype_size(t);
    return "cj::vec<" + stype(t) + ", " + std::to_string(l.vec) + ", " + std::to_string(std::min<std::size_t>(16, bytes)) + ">";
  };

  // The element function and its call.
  std::vector<std::string> eparams, eargs;
  if (g.uses_index_) {
    eparams.insert(eparams.end(), {"const long long cj_i", "const long long cj_n"});
    eargs.insert(eargs.end(), {"(long long)cj_k", "cj_n"});
  }
  std::vector<std::string> setup, load, store, vload, velem, vstore_elem, vstore, row_setup, tile_decl, tile_load;
  const bool vectors = vector || rows;
  for (std::size_t k = 0; k < p.inputs.size(); ++k) {
    const Param& q = p.inputs[k];
    Access a = l.inputs[k];
    if (a == Access::Raw) {
      if (g.in_used_[k] || g.size_used_[k]) {
        eparams.push_back("const " + stype(q.dtype) + "* " + ptr_name(q.name));
        eparams.push_back("const long long " + size_name(q.name));
        eargs.push_back(ptr_name(q.name));
        eargs.push_back(size_name(q.name));
      }
      continue;
    }
    if (g.in_used_[k]) {
      std::string decl = "const " + ctype(q.dtype) + " " + val_name(q.name) + " = ";
      eparams.push_back("const " + ctype(q.dtype) + " " + val_name(q.name));
      eargs.push_back(val_name(q.name));
      switch (a) {
        case Access::Value: setup.push_back(decl + g.load_value(q.dtype, arg_name(q.name)) + ";"); break;
        case Access::Uniform: setup.push_back(decl + g.load_value(q.dtype, ptr_name(q.name) + "[0]") + ";"); break;
        case Access::RowScalar: row_setup.push_back(decl + g.load_value(q.dtype, offset(ptr_name(q.name))) + ";"); break;
        case Access::Tiled: {
          const std::string st = std::to_string(row[ptr_name(q.name)]), tv = tile_vec(q.dtype, l.vec);
          tile_decl.push_back("__shared__ " + tv + " cj_t_" + q.name + "[" + std::to_string(16 * l.vec) + "][16];");
          tile_load.push_back("cj_tile_in<" + stype(q.dtype) + ", " + std::to_string(l.vec) + ", " + std::to_string(l.load_vec) +
                              ", cj_idx, cj_off>(cj_t_" + q.name + ", reinterpret_cast<const char*>(" + ptr_name(q.name) +
                              ") + cj_o[" + st + "] + (cj_off)(cj_V * cj_lr) * (cj_off)sizeof(" + stype(q.dtype) +
                              ") + (cj_off)(cj_V * cj_lc) * cj_l.stride[" + st + "][" + last + "], cj_l.stride[" + st + "][" + last +
                              "], cj_r0 + cj_V * cj_lr, cj_nr, cj_c0 + cj_V * cj_lc, cj_nc, cj_lr, cj_lc);");
          vload.push_back("const " + tv + " a_" + q.name + " = cj_t_" + q.name + "[cj_rr][cj_cv ^ ((cj_rr / cj_V) & 15)];");
          velem.push_back(decl + g.load_value(q.dtype, "a_" + q.name + ".v[cj_j]") + ";");
          break;
        }
        default:
          if (tiles) {
            const std::string st = std::to_string(row[ptr_name(q.name)]), tv = tile_vec(q.dtype, l.vec);
            row_setup.push_back(tile_row(ptr_name(q.name), true));
            vload.push_back("const " + tv + " a_" + q.name + " = cj_row_in<" + stype(q.dtype) + ", " + std::to_string(l.vec) +
                            ", " + std::to_string(l.store_vec) + ">(" + row_ptr(ptr_name(q.name)) + ", cj_l.stride[" + st + "][" +
                            last + "], cj_cn);");
            velem.push_back(decl + g.load_value(q.dtype, "a_" + q.name + ".v[cj_j]") + ";");
            break;
          }
          if (rows)
            row_setup.push_back("const " + stype(q.dtype) + "* const " + row_ptr(ptr_name(q.name)) + " = &" +
                                offset(ptr_name(q.name)) + ";");
          load.push_back(decl + g.load_value(q.dtype, elem_ref(ptr_name(q.name), a)) + ";");
          if (vectors) {
            vload.push_back("const " + vec_type(q.dtype) + " a_" + q.name + " = reinterpret_cast<const " + vec_type(q.dtype) +
                            "*>(" + vec_base(ptr_name(q.name)) + ")[cj_kv];");
            velem.push_back(decl + g.load_value(q.dtype, "a_" + q.name + ".v[cj_j]") + ";");
          }
      }
    }
    if (g.size_used_[k]) {
      eparams.push_back("const long long " + size_name(q.name));
      eargs.push_back(size_name(q.name));
    }
  }
  for (std::size_t k = 0; k < p.outputs.size(); ++k) {
    const Var& v = p.outputs[k];
    const std::string val = out_val(v), vec = out_vec(v), ptr = out_ptr(v);
    eparams.push_back(ctype(v.dtype) + "& " + val);
    eargs.push_back(val);
    load.push_back(ctype(v.dtype) + " " + val + ";");
    if (rows) row_setup.push_back(stype(v.dtype) + "* const " + row_ptr(ptr) + " = &" + offset(ptr) + ";");
    store.push_back(elem_ref(ptr, l.outputs[k]) + " = " + g.store_value(v.dtype, val) + ";");
    if (tiles) {
      row_setup.push_back(tile_row(ptr, false));
      vload.push_back(tile_vec(v.dtype, l.vec) + " " + vec + ";");
      velem.push_back(ctype(v.dtype) + " " + val + ";");
      vstore_elem.push_back(vec + ".v[cj_j] = " + g.store_value(v.dtype, val) + ";");
      vstore.push_back("cj_row_out<" + stype(v.dtype) + ", " + std::to_string(l.vec) + ", " + std::to_string(l.store_vec) + ">(" +
                       row_ptr(ptr) + ", " + vec + ", cj_cn);");
    } else if (vectors) {
      vload.push_back(vec_type(v.dtype) + " " + vec + ";");
      velem.push_back(ctype(v.dtype) + " " + val + ";");
      vstore_elem.push_back(vec + ".v[cj_j] = " + g.store_value(v.dtype, val) + ";");
      vstore.push_back("reinterpret_cast<" + vec_type(v.dtype) + "*>(" + vec_base(ptr) + ")[cj_kv] = " + vec + ";");
    }
  }
  if (g.uses_err_) {
    eparams.push_back("long long* cj_err");
    eargs.push_back("cj_err");
  }
  std::string call = "cj_element(" + join(eargs, ", ") + ");";

  // Header: the program, the operands, the layout.
  std::vector<std::string> prog, ops;
  {
    std::string_view src = p.ast.source;
    std::size_t pos = 0;
    while (pos <= src.size()) {
      std::size_t e = src.find('\n', pos);
      std::string_view line = src.substr(pos, e == std::string_view::npos ? std::string_view::npos : e - pos);
      std::string t = comment_text(line);
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
  }
  std::string layout_text = l.key_string() + " (" +
                            (strided ? std::to_string(l.ndim) + "-d strided"
                             : rows  ? std::to_string(l.ndim) + "-d rows, " + std::to_string(l.vec) + " per vector"
                             : tiles ? std::to_string(l.ndim) + "-d tiles of " + std::to_string(16 * l.vec) + ", vectors of " +
                                           std::to_string(l.load_vec) + " down a tiled column and " + std::to_string(l.store_vec) +
                                           " along a row"
                             : vector ? "contiguous, " + std::to_string(l.vec) + " per vector" : "contiguous") +
                            ", " + (l.index64 ? "64" : "32") + "-bit index)";

  std::map<std::string, std::string> vars;
  vars["KERNEL_NAME"] = kernel_name;
  vars["PROGRAM"] = join(prog, "\n");
  vars["OPERANDS"] = join(ops, "\n");
  vars["LAYOUT"] = layout_text;
  std::string header = render_template(template_text("header.cu"), vars);
  while (!header.empty() && header.back() == '\n') header.pop_back();

  std::vector<std::string> helpers;
  for (int k = 0; k < kNumGroups; ++k)
    if (g.groups_[k]) {
      std::string t = template_text(kGroupFile[k]);
      while (!t.empty() && t.back() == '\n') t.pop_back();
      helpers.push_back(t);
    }

  vars["ELEMENT_PARAMS"] = join(eparams, ", ");
  vars["BODY"] = join(g.lines_, "\n");
  std::string element = render_template(template_text("element.cu"), vars);
  while (!element.empty() && element.back() == '\n') element.pop_back();

  vars["HEADER"] = header;
  vars["HELPERS"] = join(helpers, "\n\n");
  vars["ELEMENT"] = element;
  vars["PARAMS"] = join(params, ", ");
  vars["INDEX_T"] = l.index64 ? "unsigned long long" : "unsigned int";
  vars["SETUP"] = join(setup, "\n");
  vars["LOAD"] = join(load, "\n");
  vars["CALL"] = call;
  vars["STORE"] = join(store, "\n");
  std::string file = "kernel_contiguous.cu";
  if (vector) {
    file = "kernel_vector.cu";
    vars["VEC"] = std::to_string(l.vec);
    vars["VINDEX"] = g.uses_index_ ? "const cj_idx cj_k = cj_kv * " + std::to_string(l.vec) + " + cj_j;" : "";
    vars["VLOAD"] = join(vload, "\n");
    vars["VELEM"] = join(velem, "\n");
    vars["VSTORE_ELEM"] = join(vstore_elem, "\n");
    vars["VSTORE"] = join(vstore, "\n");
  } else if (rows) {
    file = "kernel_rows.cu";
    const int nouter = l.ndim - 1;
    vars["VEC"] = std::to_string(l.vec);
    vars["NOUTER"] = std::to_string(nouter);
    vars["NSTRIDED"] = std::to_string(strided_names.size());
    vars["OFFSET_T"] = l.index64 ? "long long" : "int";
    vars["ROW"] = join(row_setup, "\n");
    vars["VINDEX"] = g.uses_index_ ? "const cj_idx cj_k = cj_row * cj_inner + cj_kv * " + std::to_string(l.vec) + " + cj_j;" : "";
    vars["INDEX"] = g.uses_index_ ? "const cj_idx cj_k = cj_row * cj_inner + cj_kc;" : "";
    vars["VLOAD"] = join(vload, "\n");
    vars["VELEM"] = join(velem, "\n");
    vars["VSTORE_ELEM"] = join(vstore_elem, "\n");
    vars["VSTORE"] = join(vstore, "\n");
    std::string no = std::to_string(nouter),
                srows = "[" + std::to_string(strided_names.size()) + "][" + no + "];  // bytes; rows: " + join(strided_names, ", ");
    if (l.index64) {
      vars["LAYOUT_FIELDS"] = "unsigned long long inner, rows;\nunsigned long long shape[" + no + "];\nlong long stride" + srows;
      vars["DIVIDE"] = "const cj_idx cj_q = cj_rest / cj_l.shape[cj_d];";
    } else {
      vars["LAYOUT_FIELDS"] = "unsigned int inner, rows;\nunsigned int shape[" + no + "];\nunsigned int magic[" + no +
                              "];\nunsigned int shift[" + no + "];\nint stride" + srows;
      vars["DIVIDE"] = "const cj_idx cj_q = (__umulhi(cj_rest, cj_l.magic[cj_d]) + cj_rest) >> cj_l.shift[cj_d];";
    }
  } else if (tiles) {
    file = "kernel_tiles.cu";
    vars["NDIM"] = std::to_string(l.ndim);
    vars["NSTRIDED"] = std::to_string(strided_names.size());
    vars["OFFSET_T"] = l.index64 ? "long long" : "int";
    vars["V"] = std::to_string(l.vec);
    vars["VL"] = std::to_string(l.load_vec);
    vars["VS"] = std::to_string(l.store_vec);
    vars["TILES"] = join(tile_decl, "\n");
    vars["TILE_LOAD"] = join(tile_load, "\n");
    vars["ROW"] = join(row_setup, "\n");
    vars["VLOAD"] = join(vload, "\n");
    vars["VELEM"] = join(velem, "\n");
    vars["VSTORE_ELEM"] = join(vstore_elem, "\n");
    vars["VSTORE"] = join(vstore, "\n");
    vars["VINDEX"] = g.uses_index_ ? "const cj_idx cj_k = (cj_b * cj_nr + cj_r) * cj_nc + cj_c + cj_j;" : "";
    std::string nd = std::to_string(l.ndim), srows = "[" + std::to_string(strided_names.size()) + "][" + nd + "];  // bytes; rows: " + join(strided_names, ", ");
    if (l.index64) {
      vars["LAYOUT_FIELDS"] = "unsigned long long shape[" + nd + "];\nlong long stride" + srows;
      vars["DIVIDE"] = "const cj_idx cj_q = cj_rest / cj_l.shape[cj_d];";
    } else {
      vars["LAYOUT_FIELDS"] = "unsigned int shape[" + nd + "];\nunsigned int magic[" + nd + "];\nunsigned int shift[" + nd +
                              "];\nint stride" + srows;
      vars["DIVIDE"] = "const cj_idx cj_q = (__umulhi(cj_rest, cj_l.magic[cj_d]) + cj_rest) >> cj_l.shift[cj_d];";
    }
  } else if (strided) {
    file = "kernel_strided.cu";
    vars["NDIM"] = std::to_string(l.ndim);
    vars["NSTRIDED"] = std::to_string(strided_names.size());
    vars["STRIDED_NAMES"] = join(strided_names, ", ");
    vars["OFFSET_T"] = l.index64 ? "long long" : "int";
    std::string nd = std::to_string(l.ndim), rows = "[" + std::to_string(strided_names.size()) + "][" + nd + "];  // bytes; rows: " + join(strided_names, ", ");
    if (l.index64) {
      vars["LAYOUT_FIELDS"] = "unsigned long long shape[" + nd + "];\nlong long stride" + rows;
      vars["DIVIDE"] = "const cj_idx cj_q = cj_rest / cj_l.shape[cj_d];";
    } else {
      // Division by an extent as a multiply-high and a shift (n < 2^31): see pack_layout_arg.
      vars["LAYOUT_FIELDS"] = "unsigned int shape[" + nd + "];\nunsigned int magic[" + nd + "];\nunsigned int shift[" + nd +
                              "];\nint stride" + rows;
      vars["DIVIDE"] = "const cj_idx cj_q = (__umulhi(cj_rest, cj_l.magic[cj_d]) + cj_rest) >> cj_l.shift[cj_d];";
    }
  }
  return render_template(template_text(file), vars);
}

}  // namespace cujit

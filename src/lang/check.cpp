#include "lang/check.hpp"

#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "core/fail.hpp"
#include "lang/hints.hpp"
#include "lang/parse.hpp"
#include "lang/types.hpp"
#include "lang/hints.hpp"
#include "core/limits.hpp"
#include "core/names.hpp"
#include "lang/parse.hpp"
#include "lang/types.hpp"

namespace cujit {

namespace {

constexpr std::string_view kConstants[] = {"pi", "e", "inf", "nan", "true", "false"};

bool is_constant(std::string_view n) {
  for (auto c : kConstants)
    if (c == n) return true;
  return false;
}

DType weak_default(Value::Kind k) {
  switch (k) {
    case Value::Bool: return DType::Bool;
    case Value::Int: return DType::Int64;
    case Value::Float: return DType::Float64;
    default: return DType::Complex128;
  }
}

int kind_of(DType t) { return is_bool(t) ? 0 : is_integer(t) ? 1 : is_float(t) ? 2 : 3; }

DType complex_of(DType f) {
  return f == DType::Float64 || !is_float(f) ? DType::Complex128 : DType::Complex64;
}

bool fits(const Value& v, DType t) {
  if (v.kind != Value::Int || !is_integer(t)) return true;
  if (v.big) return t == DType::UInt64;
  std::int64_t x = v.i;
  switch (t) {
    case DType::Int8: return x >= -128 && x <= 127;
    case DType::Int16: return x >= -32768 && x <= 32767;
    case DType::Int32: return x >= std::numeric_limits<std::int32_t>::min() && x <= std::numeric_limits<std::int32_t>::max();
    case DType::Int64: return true;
    case DType::UInt8: return x >= 0 && x <= 255;
    case DType::UInt16: return x >= 0 && x <= 65535;
    case DType::UInt32: return x >= 0 && x <= 4294967295LL;
    default: return x >= 0;  // uint64
  }
}

// The least (or greatest) value of an integer dtype.
Value int_limit(DType t, bool greatest) {
  Value v;
  v.kind = Value::Int;
  switch (t) {
    case DType::Int8: v.i = greatest ? 127 : -128; break;
    case DType::Int16: v.i = greatest ? 32767 : -32768; break;
    case DType::Int32: v.i = greatest ? std::numeric_limits<std::int32_t>::max() : std::numeric_limits<std::int32_t>::min(); break;
    case DType::Int64: v.i = greatest ? std::numeric_limits<std::int64_t>::max() : std::numeric_limits<std::int64_t>::min(); break;
    case DType::UInt8: v.i = greatest ? 255 : 0; break;
    case DType::UInt16: v.i = greatest ? 65535 : 0; break;
    case DType::UInt32: v.i = greatest ? 4294967295LL : 0; break;
    default:  // uint64
      if (greatest) v.big = true, v.u = std::numeric_limits<std::uint64_t>::max();
      break;
  }
  return v;
}

std::string value_text(const Value& v) { return v.big ? std::to_string(v.u) : std::to_string(v.i); }

// Python's modulo on int64 (the divisor is non-zero).
std::int64_t py_mod(std::int64_t a, std::int64_t b) {
  std::int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0))) r += b;
  return r;
}

class Checker {
 public:
  Checker(Program& p, const std::vector<OutputDecl>& outs, Outputs mode)
      : p_(p), src_(p.ast.source), decl_(outs), mode_(mode) {}

  void run() {
    validate_params();
    classify_targets();
    for (Stmt& s : p_.ast.stmts) stmt(s);
    for (const OutputDecl& d : decl_) {
      bool assigned = false;
      for (const Var& v : p_.outputs) assigned = assigned || v.name == d.name;
      if (!assigned) {
        auto end = static_cast<std::uint32_t>(src_.size());
        program_error(src_, {end, end}, "output '" + d.name + "' is never assigned",
                      "assign it, e.g. '" + d.name + " = ...'");
      }
    }
  }

 private:
  [[noreturn]] void error(Span s, const std::string& msg, const std::string& hint = "") {
    program_error(src_, s, msg, hint);
  }

  void validate_params() {
    std::set<std::string> seen;
    // A kernel's parameters are bounded: each one is a kernel argument, and
    // the CUDA parameter space is a few kilobytes.
    if (p_.inputs.size() + decl_.size() > kMaxParams)
      fail(ErrorCode::Usage, "{} parameters ({} inputs, {} declared outputs) are more than the limit of {}",
           p_.inputs.size() + decl_.size(), p_.inputs.size(), decl_.size(), kMaxParams);
    for (const Param& q : p_.inputs) check_name(q.name, "input");
    for (const OutputDecl& o : decl_) check_name(o.name, "output");
    for (const Param& q : p_.inputs) {
      if (!seen.insert(q.name).second) fail(ErrorCode::Usage, "parameter '{}' is given twice", q.name);
      std::string why = reserved_reason(q.name);
      if (!why.empty()) fail(ErrorCode::Usage, "parameter name '{}' is not allowed: {}", q.name, why);
    }
    for (const OutputDecl& o : decl_) {
      if (!seen.insert(o.name).second) fail(ErrorCode::Usage, "parameter '{}' is given twice", o.name);
      std::string why = reserved_reason(o.name);
      if (!why.empty()) fail(ErrorCode::Usage, "parameter name '{}' is not allowed: {}", o.name, why);
    }
  }

  // Why a name cannot be a parameter or a target ("" when it can).
  static std::string reserved_reason(std::string_view n) {
    if (n.empty()) return "it is empty";
    if (n[0] == '_') return "names starting with '_' are reserved";
    if (n == "i") return "'i' is the element index";
    if (n == "n") return "'n' is the number of elements";
    if (is_constant(n)) return "'" + std::string(n) + "' is a constant";
    if (dtype_from_name(n) || n == "float" || n == "int" || n == "long") return "'" + std::string(n) + "' is a type";
    if (find_builtin(n)) return "'" + std::string(n) + "' is a builtin function";
    return "";
  }

  static void collect_reads(const Expr& e, std::set<std::string>& out) {
    if (e.kind == Expr::Name || e.kind == Expr::Index) out.insert(e.kind == Expr::Name ? e.name : e.args[0]->name);
    for (const auto& a : e.args) collect_reads(*a, out);
  }

  // Which targets are outputs. Declared outputs when the caller gave them;
  // otherwise every target that is never read after its first assignment, or
  // that is assigned again (a local cannot be).
  void classify_targets() {
    auto& stmts = p_.ast.stmts;
    for (const auto& d : decl_) output_names_.insert(d.name);
    if (mode_ == Outputs::Exact) return;
    std::map<std::string, std::size_t> first;
    std::map<std::string, int> count;
    std::set<std::string> typed;
    for (std::size_t k = 0; k < stmts.size(); ++k) {
      if (first.emplace(stmts[k].target, k).second && stmts[k].declared) typed.insert(stmts[k].target);
      ++count[stmts[k].target];
    }
    // The last statement that reads each name: one pass, so that a long
    // program is linear, not quadratic, in its statements.
    std::map<std::string, std::size_t> last_read;
    for (std::size_t j = 0; j < stmts.size(); ++j) {
      std::set<std::string> r;
      collect_reads(*stmts[j].expr, r);
      if (stmts[j].compound) r.insert(stmts[j].target);
      for (const std::string& n : r) last_read[n] = j;
    }
    for (auto& [name, k] : first) {
      auto it = last_read.find(name);
      bool read_later = it != last_read.end() && it->second > k;
      // A typed declaration that is read later is a local (`float32 t = ...`).
      if (!read_later || (count[name] > 1 && !typed.count(name))) output_names_.insert(name);
    }
  }

  std::optional<DType> declared_output_type(const std::string& name) {
    for (const auto& d : decl_)
      if (d.name == name) return d.dtype;
    return std::nullopt;
  }

  void stmt(Stmt& s) {
    const std::string& t = s.target;
    target_ = t;
    const Param* updated = find_param(t);  // an input updated in place (`x *= 5`)
    if (updated) check_update(s, *updated);
    std::string why = reserved_reason(t);
    if (!why.empty()) {
      if (t == "float" || t == "int" || t == "long") check_ambiguous(t, s.target_span);
      error(s.target_span, "cannot assign to '" + t + "'", why.find("reserved") != std::string::npos ? why : why + "; choose another name");
    }
    // Targets become outputs and locals: the same rule as every other name.
    why = name_problem(t);
    if (!why.empty()) error(s.target_span, "'" + quoted_text(t) + "' is not a valid name: " + why, kNameRule);
    auto it = vars_.find(t);
    if (s.compound) {
      if (it == vars_.end() && !updated)
        error(s.target_span, "'" + t + "' is read before it is assigned",
              kernel_output(t) ? output_read_hint(t)
                               : "assign it with '=' before using '" + std::string(op_text(*s.compound)) + "='");
      auto lhs = std::make_unique<Expr>();
      lhs->kind = Expr::Name;
      lhs->name = t;
      lhs->span = s.target_span;
      auto bin = std::make_unique<Expr>();
      bin->kind = Expr::Binary;
      bin->op = *s.compound;
      bin->op_span = s.target_span;
      bin->span = s.span;
      bin->args.push_back(std::move(lhs));
      bin->args.push_back(std::move(s.expr));
      s.expr = std::move(bin);
    }
    expr(*s.expr);
    const Expr& e = *s.expr;
    if (updated) check_same_kind(s, e, *updated);
    if (updated && it == vars_.end()) {
      // The first update: from here on `t` names the new value, an output
      // whose dtype is the input's.
      Var v;
      v.name = t;
      v.dtype = updated->dtype;
      v.declared = updated->dtype;
      v.input = static_cast<int>(updated - p_.inputs.data());
      check_store(e, v.dtype, s.span);
      s.sym = Sym::Output;
      s.slot = static_cast<int>(p_.outputs.size());
      p_.outputs.push_back(v);
      vars_[t] = {s.sym, s.slot};
      return;
    }
    if (it != vars_.end()) {
      if (it->second.first == Sym::Local)
        error(s.target_span, "'" + t + "' is already assigned", "locals are immutable; assign to a new name");
      if (s.declared) error(s.declared_span, "'" + t + "' is already declared", "drop the type: '" + t + " = ...'");
      Var& out = p_.outputs[static_cast<std::size_t>(it->second.second)];
      if (s.compound && !e.weak && out.input < 0 && !can_cast_same_kind(e.type, out.dtype))
        error(s.span, "cannot store the " + std::string(dtype_name(e.type)) + " result of '" + op_text(*s.compound) +
                          "=' in " + std::string(dtype_name(out.dtype)) + " output '" + t + "'",
              "NumPy's in-place rule (same_kind) forbids it; write '" + t + " = " + std::string(dtype_name(out.dtype)) +
                  "(...)' to convert explicitly");
      check_store(e, out.dtype, s.span);
      s.sym = Sym::Output;
      s.slot = it->second.second;
      return;
    }
    Var v;
    v.name = t;
    v.declared = s.declared;
    if (output_names_.count(t) && declared_output_type(t)) v.declared = declared_output_type(t);
    v.dtype = v.declared ? *v.declared : e.type;
    v.weak = !v.declared && e.weak;
    if (v.declared) check_store(e, v.dtype, s.span);
    if (output_names_.count(t)) {
      v.weak = false;  // an output is an array: a weak value takes the dtype numpy.asarray gives it
      s.sym = Sym::Output;
      s.slot = static_cast<int>(p_.outputs.size());
      p_.outputs.push_back(v);
    } else {
      s.sym = Sym::Local;
      s.slot = static_cast<int>(p_.locals.size());
      p_.locals.push_back(v);
    }
    vars_[t] = {s.sym, s.slot};
  }

  // An input may be updated in place, as NumPy's in-place ufuncs update an
  // array, unless it is not an array of its own: a raw parameter (other
  // elements may still read it) or a Python-like scalar.
  void check_update(const Stmt& s, const Param& q) {
    const std::string& t = q.name;
    if (q.raw)
      error(s.target_span, "cannot assign to raw parameter '" + t + "'",
            "other elements may still read it; assign to a new name");
    if (q.weak)
      error(s.target_span, "cannot assign to scalar input '" + t + "'",
            "it is a Python-like number, not an array to update in place; assign to a new name");
    if (s.declared) error(s.declared_span, "'" + t + "' is an input", "drop the type to update it in place: '" + t + " = ...'");
  }

  // NumPy's same_kind rule for the result of an in-place update (`x *= 2.5`
  // on int32 x is NumPy's UFuncTypeError), and for `x = e` as np.copyto does.
  void check_same_kind(const Stmt& s, const Expr& e, const Param& q) {
    if (can_cast_same_kind(e.type, q.dtype)) return;
    const std::string to(dtype_name(q.dtype)), from(dtype_name(e.type));
    std::string what = s.compound ? "the " + from + " result of '" + op_text(*s.compound) + "='" : (from[0] == 'i' ? "an " : "a ") + from + " value";
    if (!s.compound && e.weak && e.folded)
      what = e.value.kind == Value::Float ? "a float literal" : e.value.kind == Value::Complex ? "a complex literal" : what;
    error(s.span, "cannot store " + what + " in " + to + " input '" + q.name + "', which is updated in place",
          "NumPy's same_kind rule for in-place updates forbids it; convert explicitly: '" + q.name + " = " + to + "(...)'");
  }

  // Storing a value converts it as a cast does; a literal that does not fit is an error (as NumPy 2).
  void check_store(const Expr& e, DType to, Span s) {
    if (e.folded && e.weak && !fits(e.value, to))
      error(s, "integer " + value_text(e.value) + " does not fit in " + std::string(dtype_name(to)));
  }

  void check_ambiguous(std::string_view n, Span s) {
    if (n == "float") error(s, "'float' is ambiguous", "write float32 (C's float) or float64 (Python's float)");
    if (n == "int") error(s, "'int' is ambiguous", "write int32 (C's int) or int64 (NumPy's default int)");
    if (n == "long") error(s, "'long' is ambiguous", "write int64");
  }

  // ---- expressions ----

  void expr(Expr& e) {
    switch (e.kind) {
      case Expr::Literal: return literal(e);
      case Expr::Name: return name(e);
      case Expr::Unary:
      case Expr::Binary: return op(e);
      case Expr::Ternary: return ternary(e);
      case Expr::Call: return call(e);
      case Expr::Index: return index(e);
    }
  }

  void literal(Expr& e) {
    e.folded = true;
    if (e.suffix_type) {
      e.type = *e.suffix_type;
      e.weak = false;
    } else {
      e.type = weak_default(e.value.kind);
      e.weak = true;
    }
  }

  void name(Expr& e) {
    const std::string& n = e.name;
    if (auto it = vars_.find(n); it != vars_.end()) {
      e.sym = it->second.first;
      e.slot = it->second.second;
      const Var& v = e.sym == Sym::Local ? p_.locals[static_cast<std::size_t>(e.slot)] : p_.outputs[static_cast<std::size_t>(e.slot)];
      e.type = v.dtype;
      e.weak = v.weak;
      return;
    }
    for (std::size_t k = 0; k < p_.inputs.size(); ++k) {
      const Param& q = p_.inputs[k];
      if (q.name != n) continue;
      if (q.raw) error(e.span, "raw parameter '" + n + "' must be indexed", "write " + n + "[i] for the element at the flat index i");
      e.sym = Sym::Input;
      e.slot = static_cast<int>(k);
      e.type = q.dtype;
      e.weak = q.weak;
      return;
    }
    if (n == "i" || n == "n") {
      e.sym = n == "i" ? Sym::Index : Sym::Count;
      e.type = DType::Int64;
      p_.uses_index = true;
      return;
    }
    if (is_constant(n)) {
      e.sym = Sym::Constant;
      e.folded = true;
      if (n == "true" || n == "false") {
        e.value.kind = Value::Bool;
        e.value.b = n == "true";
        e.type = DType::Bool;
        return;
      }
      e.value.kind = Value::Float;
      e.value.f = n == "pi" ? 3.141592653589793 : n == "e" ? 2.718281828459045
                : n == "inf" ? std::numeric_limits<double>::infinity() : std::numeric_limits<double>::quiet_NaN();
      e.type = DType::Float64;
      e.weak = true;
      return;
    }
    if (n[0] == '_') error(e.span, "names starting with '_' are reserved");
    if (stmt_targets_later(n))
      error(e.span, "'" + n + "' is read before it is assigned",
            kernel_output(n) ? output_read_hint(n) : "assign '" + n + "' in an earlier statement");
    check_ambiguous(n, e.span);
    if (dtype_from_name(n)) error(e.span, "'" + n + "' is a type, not a value", "cast with " + n + "(...)");
    if (find_builtin(n)) error(e.span, "'" + n + "' is a function, not a value", "call it: " + n + "(...)");
    hints::Fill fill;
    fill.name = n;
    if (auto h = hints::lookup(hints::Context::Name, n, -1, fill)) error(e.span, h->message, h->hint);
    std::vector<std::string_view> cands;
    for (const Param& q : p_.inputs) cands.push_back(q.name);
    for (auto& [v, _] : vars_) cands.push_back(v);
    cands.push_back("i");
    cands.push_back("n");
    for (auto c : kConstants) cands.push_back(c);
    std::string best = closest_name(n, cands.data(), cands.size());
    error(e.span, "unknown name '" + n + "'", best.empty() ? "" : "did you mean '" + best + "'?");
  }

  // An ElementwiseKernel's out_param. CuPy's outputs start with the given
  // array's values (`'T a', 'T y', 'y += a'`); cujit's are written only, so
  // the hint names the two ways to update an array in place.
  bool kernel_output(const std::string& n) const {
    if (mode_ != Outputs::Exact) return false;
    for (const OutputDecl& d : decl_)
      if (d.name == n) return true;
    return false;
  }
  static std::string output_read_hint(const std::string& n) {
    return "'" + n + "' is an output, and outputs are written, not read (CuPy's start with the given array's values): "
           "to update an array in place, declare '" + n + "' in in_params and assign it in the operation, or read "
           "it as an input of another name and pass the same array as that input and as '" + n + "'";
  }

  bool stmt_targets_later(const std::string& n) {
    for (const Stmt& s : p_.ast.stmts)
      if (s.target == n) return true;
    return false;
  }

  // The dtype NumPy computes a ufunc's operands in before its loop search:
  // result_type of the strong operands, raised by weak ones of a higher kind (NEP 50).
  static DType common_type(const std::vector<const Expr*>& args) {
    bool any_strong = false;
    DType t = DType::Bool;
    int weak_kind = -1;
    for (const Expr* a : args) {
      if (a->weak) {
        weak_kind = std::max(weak_kind, kind_of(a->type));
      } else {
        t = any_strong ? promote_types(t, a->type) : a->type;
        any_strong = true;
      }
    }
    if (!any_strong) return weak_kind == 1 ? DType::Int64 : weak_kind == 2 ? DType::Float64 : weak_kind == 3 ? DType::Complex128 : DType::Bool;
    if (weak_kind > kind_of(t)) {
      if (weak_kind == 1) t = DType::Int64;                                 // bool with a Python int
      else if (weak_kind == 2) t = is_float(t) ? t : DType::Float64;        // int with a Python float
      else t = is_float(t) ? complex_of(t) : is_complex(t) ? t : DType::Complex128;
    }
    return t;
  }

  static std::string types_text(const std::vector<const Expr*>& args) {
    std::string s;
    for (std::size_t k = 0; k < args.size(); ++k) {
      if (k) s += k + 1 == args.size() ? " and " : ", ";
      s += args[k]->weak && args[k]->folded ? (args[k]->value.kind == Value::Int ? "an integer literal" : args[k]->value.kind == Value::Float ? "a float literal" : "a complex literal")
                                            : std::string(dtype_name(args[k]->type));
    }
    return s;
  }

  // Picks the loop for `b` as NumPy's type resolver does: the first loop every
  // operand casts to safely, each as its own dtype (a weak Python scalar, or a
  // bool that the float loops lift to float16, as the common type). For the
  // complete integer loops that is the common type's loop; for a float-only
  // function of integers of mixed sign it is narrower: arctan2 of uint8 and
  // int8 is float16, not int16's float32. True division of integers stays
  // float64 (its own resolver).
  void resolve(Expr& e, const Builtin& b, const std::vector<const Expr*>& args, const std::string& what) {
    DType t = common_type(args);
    std::string_view loops = b.loops;
    auto reject = [&](const std::string& hint) {
      std::set<DType> distinct;
      for (auto* a : args) distinct.insert(a->type);
      std::vector<const Expr*> shown = args;
      if (distinct.size() == 1 && args.size() > 1) shown.resize(1);
      error(e.op_span, what + " does not accept " + types_text(shown), hint);
    };
    if (b.special == Special::TrueDivide && (is_integer(t) || is_bool(t))) t = DType::Float64;
    if (is_bool(t) && b.has('x')) reject(bool_hint(e));
    if (is_bool(t) && b.has('e')) t = DType::Float16;
    for (std::size_t k = 0; k < loops.size();) {
      std::size_t end = loops.find(' ', k);
      if (end == std::string_view::npos) end = loops.size();
      std::string_view tok = loops.substr(k, end - k);
      k = end + 1;
      DType in = dtype_for_char(tok[0]);
      if (!can_cast_safe(t, in)) {
        if (b.special == Special::TrueDivide) continue;
        bool each = true;
        for (const Expr* a : args) each = each && can_cast_safe(a->weak || is_bool(a->type) ? t : a->type, in);
        if (!each) continue;
      }
      e.op_type = in;
      e.type = tok.size() > 1 ? dtype_for_char(tok[1]) : in;
      for (std::size_t j = 0; j < args.size(); ++j) {
        const Expr* a = args[j];
        if (!(a->folded && a->weak && !fits(a->value, in))) continue;
        // The literal's own node, where args are e's arguments in order.
        Expr* node = j < e.args.size() && e.args[j].get() == a ? e.args[j].get() : nullptr;
        // NumPy's clip drops a Python int bound beyond the integer range on its
        // own side (a lower bound at or below the minimum, an upper one at or
        // above the maximum): it clips nothing, as the type's limit does.
        if (node && b.special == Special::Clip && j > 0 && (j == 1) == (!a->value.big && a->value.i < 0)) {
          node->value = int_limit(in, j == 2);
          continue;
        }
        // The logical functions (and &&, ||, !) read a Python int by its truth,
        // whatever its size (NumPy's logical_or(uint8, 256) is true): a value
        // that does not fit is never 0, so 1 stands for it.
        if (node && (e.op == Op::LogicalAnd || e.op == Op::LogicalOr || e.op == Op::LogicalXor ||
                     e.op == Op::LogicalNot || e.op == Op::And || e.op == Op::Or || e.op == Op::Not)) {
          node->value = Value{};
          node->value.i = 1;
          continue;
        }
        // NumPy 2 compares an out-of-range Python int exactly instead of raising.
        if (e.kind == Expr::Binary && is_cmp(e.op) && !a->value.big) {
          e.op_type = DType::Int64;
          continue;
        }
        error(a->span, "integer " + value_text(a->value) + " does not fit in " + std::string(dtype_name(in)),
              "convert the other operand to a wider type first, e.g. int64(...)");
      }
      return;
    }
    reject(type_hint(e, t));
  }

  std::string bool_hint(const Expr& e) {
    if (e.kind == Expr::Binary && e.op == Op::Sub) return "use '^' or logical_xor(a, b) for booleans";
    if (e.kind == Expr::Unary && e.op == Op::Neg) return "use '!' or logical_not(x) for booleans";
    if (e.kind == Expr::Unary && e.op == Op::Pos) return "convert first, e.g. int8(x)";
    return "convert first, e.g. int8(x)";
  }

  std::string type_hint(const Expr& e, DType t) {
    if (e.kind == Expr::Binary && e.op == Op::BitXor && (is_float(t) || is_complex(t))) return "use pow(a, b) or a**b";
    if ((e.kind == Expr::Binary && (e.op == Op::BitAnd || e.op == Op::BitOr || e.op == Op::Shl || e.op == Op::Shr)) ||
        (e.kind == Expr::Unary && e.op == Op::BitNot)) {
      if (e.args.size() == 2 && is_integer(e.args[0]->type) && is_integer(e.args[1]->type) && !e.args[0]->weak && !e.args[1]->weak) return "int64 and uint64 have no common integer type; cast one of them";
      return "bitwise operators take integers or bools";
    }
    return "";
  }

  std::vector<const Expr*> arg_ptrs(const Expr& e) {
    std::vector<const Expr*> v;
    for (auto& a : e.args) v.push_back(a.get());
    return v;
  }

  void op(Expr& e) {
    for (auto& a : e.args) expr(*a);
    const Builtin& b = builtin(e.op);
    e.builtin = &b;
    auto args = arg_ptrs(e);
    // The contract keeps shifts to integers, even where NumPy would lift a bool to int64.
    if (e.op == Op::Shl || e.op == Op::Shr)
      for (const Expr* a : args)
        if (!a->weak && a->type == DType::Bool)
          error(e.op_span, std::string("operator '") + op_text(e.op) + "' does not accept bool", "shifts take integers; convert with int8(...)");
    resolve(e, b, args, std::string("operator '") + op_text(e.op) + "'");
    if (e.op == Op::Pow && is_integer(e.op_type) && e.args[1]->folded && e.args[1]->value.kind == Value::Int &&
        !e.args[1]->value.big && e.args[1]->value.i < 0 && !(e.args[0]->folded && e.args[0]->weak))
      error(e.args[1]->span, "integers to negative integer powers are not allowed",
            "make the base a float, e.g. float64(...)");
    if (e.kind == Expr::Binary && is_cmp(e.op) && is_integer(e.args[0]->type) && is_integer(e.args[1]->type) &&
        e.op_type == DType::Float64 && !e.args[0]->weak && !e.args[1]->weak)
      e.op_type = DType::Int64;  // int64 vs uint64: NumPy compares exactly (its qQ loop); see mixed_compare
    bool all_weak = true, all_folded = true;
    for (auto* a : args) all_weak = all_weak && a->weak, all_folded = all_folded && a->folded;
    if (all_weak && e.type != DType::Bool) {
      e.weak = true;
      e.type = e.type == DType::Float16 ? DType::Float64 : e.type;
    }
    if (all_folded && all_weak) fold(e);
  }

  static bool is_cmp(Op op) { return op >= Op::Lt && op <= Op::Ne; }

  void ternary(Expr& e) {
    for (auto& a : e.args) expr(*a);
    std::vector<const Expr*> vals = {e.args[1].get(), e.args[2].get()};
    e.op_type = common_type(vals);
    e.type = e.op_type;
    // `c ? a : b` is where(c, a, b): a function, so its result is strong unless
    // everything folds to a literal.
    e.weak = false;
    for (const Expr* a : vals)
      if (a->folded && a->weak && !fits(a->value, e.type))
        error(a->span, "integer " + value_text(a->value) + " does not fit in " + std::string(dtype_name(e.type)));
    const Expr& c = *e.args[0];
    if (c.folded && vals[0]->folded && vals[1]->folded && vals[0]->weak && vals[1]->weak) {
      bool truth = c.value.kind == Value::Bool ? c.value.b : c.value.kind == Value::Int ? (c.value.big || c.value.i != 0)
                 : c.value.kind == Value::Float ? c.value.f != 0 : c.value.c != std::complex<double>(0, 0);
      Value v = promote_value(truth ? vals[0]->value : vals[1]->value, kind_of(e.type));
      e.weak = true;
      set_folded(e, v);
    }
  }

  void call(Expr& e) {
    check_ambiguous(e.name, e.op_span);
    const Builtin* b = find_builtin(e.name);
    if (!b) {
      for (const Param& q : p_.inputs)
        if (q.name == e.name)
          error(e.op_span, "'" + e.name + "' is not a function", q.raw ? "index raw parameters with " + e.name + "[j]" : "");
      hints::Fill fill;
      fill.name = e.name;
      fill.target = target_;
      for (const auto& a : e.args) hints::add_arg(fill, src_, *a);
      if (auto h = hints::lookup(hints::Context::Call, e.name, static_cast<int>(e.args.size()), fill))
        error(e.op_span, h->message, h->hint);
      error(e.op_span, "unknown function '" + e.name + "'", hints::unknown_function_hint(e.name));
    }
    if (b->is_reduction()) return reduction(e, *b);
    int nargs = static_cast<int>(e.args.size());
    if (nargs < b->min_args || nargs > b->max_args) {
      hints::Fill fill;
      fill.name = e.name;
      fill.target = target_;
      for (const auto& a : e.args) hints::add_arg(fill, src_, *a);
      if (auto h = hints::lookup(hints::Context::Call, e.name, nargs, fill); h && !h->message.empty())
        error(e.op_span, h->message, h->hint);
    }
    if (nargs < b->min_args || nargs > b->max_args)
      error(e.span, "'" + e.name + "' takes " + std::to_string(b->min_args) + " argument" + (b->min_args == 1 ? "" : "s") +
                        ", but " + std::to_string(nargs) + (nargs == 1 ? " was" : " were") + " given");
    e.builtin = b;
    e.op = b->id;  // resolved once: later stages switch over the id
    if (b->special == Special::Size) {
      const Expr& a = *e.args[0];
      const Param* q = a.kind == Expr::Name ? find_param(a.name) : nullptr;
      if (!q || q->weak) error(a.span, "size() takes an array parameter", "write size(x) where x is an input array");
      e.args[0]->sym = Sym::Input;
      e.args[0]->slot = static_cast<int>(q - p_.inputs.data());
      e.args[0]->type = q->dtype;
      e.type = DType::Int64;
      return;
    }
    for (auto& a : e.args) expr(*a);
    auto args = arg_ptrs(e);
    std::string what = "function '" + e.name + "'";
    switch (b->special) {
      case Special::Cast: {
        const Expr& a = *e.args[0];
        e.type = *dtype_from_name(b->name);
        e.op_type = a.type;
        if (a.folded && a.weak && !fits(a.value, e.type))
          error(a.span, "integer " + value_text(a.value) + " does not fit in " + std::string(dtype_name(e.type)));
        if (a.folded && a.weak && a.value.big && !is_integer(e.type)) { /* converts as a float */ }
        return;
      }
      case Special::Where: {
        std::vector<const Expr*> vals = {args[1], args[2]};
        resolve(e, *b, vals, what);
        return;
      }
      case Special::Real:
      case Special::Imag:
        resolve(e, *b, args, what);
        return;
      case Special::ComplexParts: {
        // NumPy's re + im*1j (NEP 50): im*1j is im raised to complex by a
        // Python complex (ints and bool to complex128, float16/float32 to
        // complex64), weak where im is; that meets re as `+` does.
        Expr j{}, im_j{};
        j.weak = true;
        j.type = DType::Complex128;
        im_j.weak = args[1]->weak;
        im_j.type = common_type({args[1], &j});
        resolve(e, *b, {args[0], &im_j}, what);
        e.weak = args[0]->weak && args[1]->weak;  // 1 + 2*1j is a Python complex
        return;
      }
      default:
        resolve(e, *b, args, what);
        return;
    }
  }

  // ---- reductions ----

  // `sum(x*y, axis=(0, 2), keepdims=true)`: one positional argument, any
  // expression, and NumPy's keyword arguments, each a constant. The result
  // dtype is NumPy 2's (reduce_result); shapes, and so axes against the
  // argument's dimensions, are known only when the program runs (reduce_plan).
  void reduction(Expr& e, const Builtin& b) {
    e.builtin = &b;
    e.op = b.id;
    const int nargs = static_cast<int>(e.args.size());
    if (nargs != 1) {
      std::string hint;
      hints::Fill fill;
      fill.name = e.name;
      fill.target = target_;
      for (const auto& a : e.args) hints::add_arg(fill, src_, *a);
      if (auto h = hints::lookup(hints::Context::Call, b.name, nargs, fill); h && (b.reduce == Reduce::Min || b.reduce == Reduce::Max))
        hint = h->hint;
      else if (nargs == 2 && b.takes_keyword("axis"))
        hint = "pass the axis by keyword: " + e.name + "(" + fill.args[0] + ", axis=" + fill.args[1] + ")";
      error(nargs == 0 ? e.span : e.op_span, "'" + e.name + "' takes 1 argument, but " + std::to_string(nargs) +
                                                 (nargs == 1 ? " was" : " were") + " given", hint);
    }
    Expr& a = *e.args[0];
    if (a.kind == Expr::Name)
      if (const Param* q = find_param(a.name); q && q->raw)
        error(a.span, "cannot reduce raw parameter '" + a.name + "'",
              "a raw parameter is read by index; pass '" + a.name + "' as an ordinary input to reduce it");
    expr(a);
    auto args = std::make_shared<ReduceArgs>();
    std::set<std::string> seen;
    for (Keyword& kw : e.kwargs) {
      if (!b.takes_keyword(kw.name))
        error(kw.name_span, "'" + e.name + "' takes no keyword argument '" + kw.name + "'", keyword_hint(b));
      if (!seen.insert(kw.name).second)
        error(kw.name_span, "keyword argument '" + kw.name + "' is given twice");
      if (kw.name == "axis") axis_keyword(e, b, kw, *args);
      else if (kw.name == "keepdims") args->keepdims = bool_keyword(kw);
      else if (kw.name == "ddof") args->ddof = ddof_keyword(kw);
      else dtype_keyword(kw, b, a, *args);
    }
    if (args->dtype && !is_float(*args->dtype) && !is_complex(*args->dtype) && !b.nan_ignoring() &&
        is_float(a.weak ? weak_array_type(a) : a.type))
      cast_argument(e, *args->dtype);
    DType in = e.args[0]->weak ? weak_array_type(*e.args[0]) : e.args[0]->type;
    if (is_complex(in) && (b.reduce == Reduce::ArgMin || b.reduce == Reduce::ArgMax || b.reduce == Reduce::Min ||
                           b.reduce == Reduce::Max) && b.nan_ignoring())
      error(e.op_span, "function '" + e.name + "' does not accept " + std::string(dtype_name(in)),
            "NaN-ignoring minima and maxima take real numbers; reduce real(...) or abs(...)");
    e.op_type = in;
    e.type = reduce_result(b, in, args->dtype);
    e.weak = false;
    e.reduce = std::move(args);
    p_.has_reductions = true;
  }

  // `sum(x, dtype=int8)` of floats: the argument converted as `int8(x)` converts
  // it (NaN to 0, out of range saturated), so both back ends sum the same
  // integers, as NumPy converts the elements to dtype= first. (The nan- versions
  // keep their floats: NaN is absent there, not 0.)
  void cast_argument(Expr& e, DType t) {
    auto cast = std::make_unique<Expr>();
    Expr& a = *e.args[0];
    cast->kind = Expr::Call;
    cast->span = cast->op_span = a.span;
    cast->name = std::string(dtype_name(t));
    cast->builtin = find_builtin(cast->name);
    if (!cast->builtin) fail(ErrorCode::Internal, "no cast to {}", dtype_name(t));
    cast->op = cast->builtin->id;
    cast->type = t;
    cast->op_type = a.weak ? weak_array_type(a) : a.type;
    cast->depth = a.depth + 1;
    cast->args.push_back(std::move(e.args[0]));
    e.args[0] = std::move(cast);
  }

  // The dtype numpy.asarray gives a Python scalar (a weak argument of a reduction).
  static DType weak_array_type(const Expr& a) {
    return a.type == DType::Bool ? DType::Bool : a.type == DType::Int64 ? DType::Int64
         : is_complex(a.type) ? DType::Complex128 : DType::Float64;
  }

  static std::string keyword_hint(const Builtin& b) {
    std::string list;
    for (std::size_t k = 0; k < b.keywords.size();) {
      std::size_t end = b.keywords.find(' ', k);
      if (end == std::string_view::npos) end = b.keywords.size();
      list += (list.empty() ? "" : ", ") + std::string(b.keywords.substr(k, end - k)) + "=";
      k = end + 1;
    }
    return "it takes " + list;
  }

  // A keyword's value must be a constant the program fixes (NumPy's axis is a
  // Python int, never an array).
  std::int64_t int_constant(Expr& v, const std::string& what, const std::string& hint) {
    if (v.kind == Expr::Name && v.name == "None") error(v.span, what + " cannot be None here", hint);
    expr(v);
    if (!v.folded || v.value.kind != Value::Int || v.value.big)
      error(v.span, what + " must be an integer constant", hint);
    return v.value.i;
  }

  void axis_keyword(const Expr& e, const Builtin& b, Keyword& kw, ReduceArgs& r) {
    const std::string hint = "write a number, e.g. axis=0, axis=-1" + std::string(b.has('1') ? "" : " or axis=(0, 1)");
    if (!kw.tuple && kw.items.size() == 1 && kw.items[0]->kind == Expr::Name && kw.items[0]->name == "None") return;
    if (kw.tuple && b.has('1'))
      error(kw.value_span, "'" + e.name + "' takes one axis, not a tuple", "write axis=0, or reduce without axis= for every axis");
    r.all_axes = false;
    for (auto& item : kw.items) {
      std::int64_t ax = int_constant(*item, "axis", hint);
      for (std::size_t k = 0; k < r.axes.size(); ++k)
        if (r.axes[k] == ax) error(item->span, "axis " + std::to_string(ax) + " is given twice", "give each axis once");
      r.axes.push_back(ax);
      r.axis_spans.push_back(item->span);
    }
  }

  bool bool_keyword(Keyword& kw) {
    const std::string hint = "write " + kw.name + "=true or " + kw.name + "=false";
    if (kw.tuple) error(kw.value_span, kw.name + " must be true or false", hint);
    Expr& v = *kw.items[0];
    if (v.kind == Expr::Name && (v.name == "True" || v.name == "False")) return v.name == "True";
    if (v.kind == Expr::Name && v.name != "true" && v.name != "false") error(v.span, kw.name + " must be true or false", hint);
    expr(v);
    if (!v.folded || v.value.kind != Value::Bool) error(v.span, kw.name + " must be true or false", hint);
    return v.value.b;
  }

  double ddof_keyword(Keyword& kw) {
    const std::string hint = "write a number, e.g. ddof=1";
    if (kw.tuple) error(kw.value_span, "ddof must be a number constant", hint);
    Expr& v = *kw.items[0];
    expr(v);
    if (!v.folded || !(v.value.kind == Value::Int || v.value.kind == Value::Float) || v.value.big)
      error(v.span, "ddof must be a number constant", hint);
    return v.value.kind == Value::Int ? static_cast<double>(v.value.i) : v.value.f;
  }

  void dtype_keyword(Keyword& kw, const Builtin& b, const Expr& arg, ReduceArgs& r) {
    const std::string hint = "write a dtype name, e.g. dtype=float64";
    if (kw.tuple || kw.items[0]->kind != Expr::Name) error(kw.value_span, "dtype must be a dtype name", hint);
    const Expr& v = *kw.items[0];
    check_ambiguous(v.name, v.span);
    std::optional<DType> t = dtype_from_name(v.name);
    if (!t) error(v.span, "unknown dtype '" + v.name + "'", hint);
    // NumPy refuses a complex argument reduced into a real dtype (ComplexWarning aside, same_kind casting).
    DType in = arg.weak ? weak_array_type(arg) : arg.type;
    if (is_complex(in) && !is_complex(*t))
      error(v.span, "cannot reduce " + std::string(dtype_name(in)) + " into " + std::string(dtype_name(*t)),
            "reduce real(...) or abs(...) of it, or give a complex dtype");
    // NumPy's nanmean refuses it (TypeError "If a is inexact, then dtype must be inexact").
    if (b.reduce == Reduce::Mean && b.nan_ignoring() && (is_float(in) || is_complex(in)) && !is_float(*t) &&
        !is_complex(*t))
      error(v.span, "nanmean of " + std::string(dtype_name(in)) + " cannot accumulate in " + std::string(dtype_name(*t)),
            "give a floating-point dtype (NumPy refuses an integer one here too), or take mean(...)");
    r.dtype = t;
  }

  const Param* find_param(const std::string& n) {
    for (const Param& q : p_.inputs)
      if (q.name == n) return &q;
    return nullptr;
  }

  void index(Expr& e) {
    const std::string& n = e.args[0]->name;
    const Param* q = find_param(n);
    if (!q) {
      name(*e.args[0]);  // reports an unknown name; a known one is still not indexable
      error(e.args[0]->span, "'" + n + "' is not a raw parameter, so it cannot be indexed");
    }
    if (!q->raw)
      error(e.args[0]->span, "'" + n + "' is not a raw parameter, so it cannot be indexed",
            "declare it 'raw' to index it, or use '" + n + "' as an elementwise value");
    e.args[0]->sym = Sym::Input;
    e.args[0]->slot = static_cast<int>(q - p_.inputs.data());
    e.args[0]->type = q->dtype;
    Expr& j = *e.args[1];
    expr(j);
    if (!is_integer(j.type) || (j.weak && j.type != DType::Int64))
      error(j.span, "an index must be an integer, not " + std::string(j.weak ? "a float" : dtype_name(j.type)),
            "convert it with int64(...)");
    if (j.folded && j.value.big) error(j.span, "index " + value_text(j.value) + " is out of range");
    e.op_type = j.type;
    e.type = q->dtype;
  }

  // ---- folding of literal-only arithmetic (Python's semantics, NumPy's values) ----

  static Value promote_value(Value v, int kind) {
    if (kind >= 1 && v.kind == Value::Bool) {
      v.i = v.b ? 1 : 0;
      v.kind = Value::Int;
    }
    if (kind >= 2 && v.kind == Value::Int) {
      v.f = v.big ? static_cast<double>(v.u) : static_cast<double>(v.i);
      v.kind = Value::Float;
    }
    if (kind >= 3 && v.kind == Value::Float) {
      v.c = {v.f, 0};
      v.kind = Value::Complex;
    }
    return v;
  }

  void set_folded(Expr& e, const Value& v) {
    e.value = v;
    e.folded = true;
    e.kind = Expr::Literal;
    e.args.clear();
    if (v.kind == Value::Bool) {
      e.weak = false;
      e.type = DType::Bool;
    } else {
      e.type = weak_default(v.kind);
    }
  }

  void fold(Expr& e) {
    int kind = 0;
    for (auto& a : e.args) kind = std::max(kind, a->value.kind == Value::Bool ? 0 : kind_of(a->type));
    if (e.op == Op::Div || (e.op == Op::Pow && kind == 1 && !e.args[1]->value.big && e.args[1]->value.i < 0)) kind = std::max(kind, 2);
    std::vector<Value> v;
    for (auto& a : e.args) {
      if (a->value.big) error(a->span, "integer " + value_text(a->value) + " is too large for arithmetic on literals",
                              "literals are folded in int64; write it as a float or combine it with a uint64 array");
      v.push_back(promote_value(a->value, std::max(kind, 1)));
    }
    Value r;
    if (is_cmp(e.op) || e.op == Op::And || e.op == Op::Or || e.op == Op::Not) {
      r.kind = Value::Bool;
      r.b = fold_logic(e.op, v);
      return set_folded(e, r);
    }
    r.kind = v[0].kind;
    if (r.kind == Value::Int) {
      r.i = fold_int(e, v);
    } else if (r.kind == Value::Float) {
      r.f = fold_float(e.op, v);
    } else {
      r.c = fold_complex(e, v);
    }
    set_folded(e, r);
  }

  static bool truth(const Value& v) {
    return v.kind == Value::Int ? v.i != 0 : v.kind == Value::Float ? v.f != 0 : v.c != std::complex<double>(0, 0);
  }

  static bool fold_logic(Op op, const std::vector<Value>& v) {
    auto lt = [](const Value& a, const Value& b) {
      if (a.kind == Value::Int) return a.i < b.i;
      if (a.kind == Value::Float) return a.f < b.f;
      return a.c.real() < b.c.real() || (a.c.real() == b.c.real() && a.c.imag() < b.c.imag());
    };
    auto eq = [](const Value& a, const Value& b) {
      return a.kind == Value::Int ? a.i == b.i : a.kind == Value::Float ? a.f == b.f : a.c == b.c;
    };
    switch (op) {
      case Op::Lt: return lt(v[0], v[1]);
      case Op::Le: return lt(v[0], v[1]) || eq(v[0], v[1]);
      case Op::Gt: return lt(v[1], v[0]);
      case Op::Ge: return lt(v[1], v[0]) || eq(v[0], v[1]);
      case Op::Eq: return eq(v[0], v[1]);
      case Op::Ne: return !eq(v[0], v[1]);
      case Op::And: return truth(v[0]) && truth(v[1]);
      case Op::Or: return truth(v[0]) || truth(v[1]);
      default: return !truth(v[0]);
    }
  }

  std::int64_t fold_int(const Expr& e, const std::vector<Value>& v) {
    std::int64_t a = v[0].i, b = v.size() > 1 ? v[1].i : 0, r = 0;
    bool overflow = false;
    switch (e.op) {
      case Op::Add: overflow = __builtin_add_overflow(a, b, &r); break;
      case Op::Sub: overflow = __builtin_sub_overflow(a, b, &r); break;
      case Op::Mul: overflow = __builtin_mul_overflow(a, b, &r); break;
      case Op::Mod: r = b == 0 ? 0 : (a == std::numeric_limits<std::int64_t>::min() && b == -1) ? 0 : py_mod(a, b); break;
      case Op::Pow: {
        r = 1;
        for (std::int64_t k = 0; k < b && !overflow; ++k) {
          overflow = __builtin_mul_overflow(r, a, &r);
          if (r == 0 || r == 1 || (r == -1 && a == -1)) { if (a == -1) r = (b % 2) ? -1 : 1; break; }
        }
        break;
      }
      case Op::Shl:
        if (b < 0) error(e.args[1]->span, "negative shift count");
        if (b >= 63 || (a != 0 && (a > (std::numeric_limits<std::int64_t>::max() >> b) || a < (std::numeric_limits<std::int64_t>::min() >> b)))) overflow = a != 0;
        else r = static_cast<std::int64_t>(static_cast<std::uint64_t>(a) << b);
        break;
      case Op::Shr:
        if (b < 0) error(e.args[1]->span, "negative shift count");
        r = b >= 63 ? (a < 0 ? -1 : 0) : a >> b;
        break;
      case Op::BitAnd: r = a & b; break;
      case Op::BitOr: r = a | b; break;
      case Op::BitXor: r = a ^ b; break;
      case Op::Neg: overflow = __builtin_sub_overflow(std::int64_t{0}, a, &r); break;
      case Op::Pos: r = a; break;
      case Op::BitNot: r = ~a; break;
      default: break;
    }
    if (overflow)
      error(e.span, "integer overflow in arithmetic on literals (they are folded in int64)",
            "write one operand as a float literal, e.g. '2.0'");
    return r;
  }

  static double fold_float(Op op, const std::vector<Value>& v) {
    double a = v[0].f, b = v.size() > 1 ? v[1].f : 0;
    switch (op) {
      case Op::Add: return a + b;
      case Op::Sub: return a - b;
      case Op::Mul: return a * b;
      case Op::Div: return a / b;
      case Op::Mod: {  // NumPy's remainder: the sign of the divisor
        if (b == 0) return std::numeric_limits<double>::quiet_NaN();
        double m = std::fmod(a, b);
        if (m != 0 && ((m < 0) != (b < 0))) m += b;
        if (m == 0) m = std::copysign(0.0, b);
        return m;
      }
      case Op::Pow: return std::pow(a, b);
      case Op::Neg: return -a;
      default: return a;
    }
  }

  std::complex<double> fold_complex(const Expr& e, const std::vector<Value>& v) {
    std::complex<double> a = v[0].c, b = v.size() > 1 ? v[1].c : 0.0;
    switch (e.op) {
      case Op::Add: return a + b;
      case Op::Sub: return a - b;
      case Op::Mul: return a * b;
      case Op::Div: return a / b;
      case Op::Pow: return std::pow(a, b);
      case Op::Neg: return -a;
      default: return a;
    }
  }

  Program& p_;
  std::string_view src_;
  const std::vector<OutputDecl>& decl_;
  Outputs mode_;
  std::set<std::string> output_names_;
  std::map<std::string, std::pair<Sym, int>> vars_;
  std::string_view target_;  // the statement being checked (for hints)
};

// The value an expression evaluates to has this dtype (an integer literal above
// INT64_MAX is held as a uint64).
DType held_dtype(const Expr& e) {
  if (e.folded && e.value.kind == Value::Int && e.value.big) return DType::UInt64;
  return e.type;
}

void mark_operand(Expr& a, DType to, Program& p) {
  if (a.weak && !a.folded && is_integer(to) && held_dtype(a) == DType::Int64 && to != DType::Int64)
    a.fit = p.can_fail = true;
}

// The run-time decisions both back ends share (Expr::fit, Expr::mixed_compare,
// Program::can_fail), made once over the checked tree in the order the back
// ends evaluate it: folded subtrees are constants and run nothing.
void mark_run_time(Expr& e, Program& p) {
  if (e.folded) return;
  for (auto& a : e.args) mark_run_time(*a, p);
  const bool cmp = e.kind == Expr::Binary && e.op >= Op::Lt && e.op <= Op::Ne;
  switch (e.kind) {
    case Expr::Literal:
    case Expr::Name: return;
    case Expr::Index: p.can_fail = true; return;
    case Expr::Ternary:
      mark_operand(*e.args[1], e.op_type, p);
      mark_operand(*e.args[2], e.op_type, p);
      return;
    case Expr::Binary:
      if (cmp) {
        DType ta = held_dtype(*e.args[0]), tb = held_dtype(*e.args[1]);
        e.mixed_compare = is_integer(ta) && is_integer(tb) && is_signed_int(ta) != is_signed_int(tb) &&
                          (ta == DType::UInt64 || tb == DType::UInt64);
        if (e.mixed_compare) return;
      }
      break;
    case Expr::Call:
      if (e.builtin->special == Special::Cast || e.builtin->special == Special::Size) return;
      if (e.builtin->special == Special::Where) {
        mark_operand(*e.args[1], e.op_type, p);
        mark_operand(*e.args[2], e.op_type, p);
        return;
      }
      break;
    case Expr::Unary: break;
  }
  for (auto& a : e.args) mark_operand(*a, e.op_type, p);
  if (e.builtin && (e.builtin->id == Op::Pow || e.builtin->id == Op::Power) && is_signed_int(e.op_type) &&
      !e.args[1]->folded)
    e.nonneg_exponent = p.can_fail = true;
}

}  // namespace

Program check(Ast ast, const std::vector<Param>& inputs, const std::vector<OutputDecl>& outputs, Outputs mode) {
  Program p;
  p.ast = std::move(ast);
  p.inputs = inputs;
  Checker(p, outputs, mode).run();
  for (Stmt& st : p.ast.stmts) mark_run_time(*st.expr, p);
  return p;
}

// Without the exponent's value: which negative element a GPU meets first
// depends on the launch, and the message must not (NumPy's names none).
std::string negative_power_message(long long /*exponent*/) {
  return "integers to negative integer powers are not allowed (an exponent is negative); make the base a float, "
         "e.g. float64(...)";
}

Program compile_program(std::string_view source, const std::vector<Param>& inputs,
                        const std::vector<OutputDecl>& outputs, Outputs mode, const TypeNames& placeholders) {
  return check(parse(source, placeholders), inputs, outputs, mode);
}

}  // namespace cujit

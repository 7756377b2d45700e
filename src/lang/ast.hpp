// The syntax tree. parse fills in the shape; check fills in the types and
// resolves names, so codegen and the CPU evaluator read one annotated tree.
#pragma once
#include <complex>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cujit/dtype.hpp"
#include "lang/diagnostic.hpp"

namespace cujit {

// Every operator and function, as ops.def lists them: the parser yields the
// operators; check resolves each call to its function (Expr::op), so later
// stages switch over this id and never look at a name again.
enum class Op : std::uint8_t {
#define OP(Id, ...) Id,
#define FORM(Id, ...) Id,
#define REDUCE(Id, ...) Id,
#include "lang/ops.def"
};
// How the program writes it ("+", "sin").
const char* op_text(Op op);

// A compile-time constant: what literals and constants fold to.
struct Value {
  enum Kind { Bool, Int, Float, Complex } kind = Int;
  bool b = false;
  std::int64_t i = 0;
  bool big = false;  // Int above INT64_MAX (up to 2^64-1); `u` holds it
  std::uint64_t u = 0;
  double f = 0;
  std::complex<double> c;
};

struct Builtin;  // check.hpp
struct Expr;

// A keyword argument of a reduction: `axis=1`, `axis=(0, 2)`, `keepdims=true`,
// `dtype=float64`. A tuple's items are in `items`; any other value is items[0].
struct Keyword {
  std::string name;
  Span name_span;   // `axis`
  Span value_span;  // `(0, 2)`
  bool tuple = false;
  std::vector<std::unique_ptr<Expr>> items;
};

// What check makes of a reduction's keywords (Expr::reduce). The axes are as
// written (negative ones count from the end): only the argument's shape, known
// when the program runs, normalises them (src/plan/reduce_plan.hpp).
struct ReduceArgs {
  bool all_axes = true;               // no axis= (or axis=None): every axis
  std::vector<std::int64_t> axes;     // as written
  std::vector<Span> axis_spans;       // where each is written, for errors at run time
  bool keepdims = false;
  double ddof = 0;                    // var, std
  std::optional<DType> dtype;         // dtype=, as given
};

enum class Sym : std::uint8_t { None, Input, Local, Output, Index, Count, Constant };

struct Expr {
  enum Kind { Literal, Name, Unary, Binary, Ternary, Call, Index } kind;
  Span span;     // the whole expression
  Span op_span;  // the operator token, or the name of a call
  Op op = Op::Add;  // Unary, Binary: the operator; Call: the function (set by check)
  std::string name;  // Name, Call
  std::vector<std::unique_ptr<Expr>> args;
  bool parenthesized = false;
  int depth = 1;  // height of the subtree: bounded, so recursive stages cannot overflow the stack

  // Literal: value, and the dtype a suffix makes it (strong), if any.
  Value value;
  std::optional<DType> suffix_type;

  // Set by check.
  DType type = DType::Int64;   // result dtype (for a weak expression: int64/float64/complex128/bool)
  bool weak = false;           // a Python-scalar-like value (NEP 50)
  DType op_type = DType::Int64;  // the dtype operands are converted to before the operation
  const Builtin* builtin = nullptr;
  Sym sym = Sym::None;
  int slot = -1;  // Input/Local/Output index
  bool folded = false;  // a constant: `value` holds it (in `type` when not weak)
  // Decided once by check (mark_run_time), read by every back end:
  // fit: a weak int64 operand converted to a narrower integer op_type must fit
  //   it at run time (the value is not known until then); a failure goes to
  //   the error slot. mixed_compare: an int64 against a uint64 comparison,
  //   which NumPy evaluates exactly, with no common dtype (cmp_lt and friends).
  //   nonneg_exponent: an integer power whose exponent is not a constant; a
  //   negative one is NumPy's error, reported through the error slot.
  bool fit = false;
  bool mixed_compare = false;
  bool nonneg_exponent = false;

  // A reduction's call (builtin->is_reduction()): its keyword arguments as
  // written (parse) and as check reads them.
  std::vector<Keyword> kwargs;
  std::shared_ptr<const ReduceArgs> reduce;
};
using ExprPtr = std::unique_ptr<Expr>;

struct Stmt {
  Span span;
  std::string target;
  Span target_span;
  std::optional<DType> declared;  // `float32 t = ...`
  Span declared_span;
  std::optional<Op> compound;     // `t += ...`
  ExprPtr expr;                   // for `t op= e`, check rewrites this to `t op e`

  // Set by check.
  Sym sym = Sym::None;  // Local or Output
  int slot = -1;
};

struct Ast {
  std::string source;
  std::vector<Stmt> stmts;
};

}  // namespace cujit

#include "lang/hints.hpp"

#include <fmt/format.h>

#include <iterator>

#include "lang/ast.hpp"
#include "lang/builtins.hpp"

namespace cujit::hints {

namespace {

// One row of the table. `message` empty: the context's usual message.
// `nargs` -1: any number of arguments; rows for one key are tried in order,
// so a row for a given count comes before the row for any count.
struct Entry {
  Context context;
  std::string key;
  int nargs;
  std::string message, hint;
};

constexpr std::string_view kReduction =
    "'{name}' is a reduction the language does not have; its reductions are sum, prod, min, max, mean, var, std, "
    "any, all, argmin, argmax and their nan- versions (nansum, nanmean, ...)";

// NumPy's reductions that are not the language's (those are rows of ops.def):
// met as functions (`median(x)`) or methods (`x.median()`).
constexpr std::string_view kReductions[] = {"median", "nanmedian", "average", "count_nonzero", "ptp",
                                            "percentile", "quantile"};

// Scans: each result depends on the elements before it.
constexpr std::string_view kScans[] = {"cumsum", "cumprod", "nancumsum", "nancumprod", "diff"};

// Products over many elements.
constexpr std::string_view kProducts[] = {"dot", "vdot", "matmul", "inner", "outer", "cross", "einsum", "tensordot", "kron"};

// NumPy's ufuncs that the language spells as operators: name, operator, operands.
struct OperatorUfunc {
  std::string_view name, op;
  int arity;
};
constexpr OperatorUfunc kOperatorUfuncs[] = {
    {"add", "+", 2},          {"subtract", "-", 2},      {"multiply", "*", 2},     {"divide", "/", 2},
    {"true_divide", "/", 2},  {"mod", "%", 2},           {"greater", ">", 2},      {"greater_equal", ">=", 2},
    {"less", "<", 2},         {"less_equal", "<=", 2},   {"equal", "==", 2},       {"not_equal", "!=", 2},
    {"bitwise_and", "&", 2},  {"bitwise_or", "|", 2},    {"bitwise_xor", "^", 2},  {"left_shift", "<<", 2},
    {"right_shift", ">>", 2}, {"negative", "-", 1},      {"positive", "+", 1},     {"invert", "~", 1},
    {"bitwise_not", "~", 1},  {"bitwise_invert", "~", 1},
};

std::vector<Entry> build_table() {
  using C = Context;
  std::vector<Entry> t = {
      // Python's min/max of two values and NumPy's elementwise pair (of one array, min/max are reductions).
      {C::Call, "min", 2, "", "NumPy's elementwise minimum is minimum({args}) (NaN propagates) or fmin({args}) (NaN is ignored)"},
      {C::Call, "max", 2, "", "NumPy's elementwise maximum is maximum({args}) (NaN propagates) or fmax({args}) (NaN is ignored)"},
      {C::Call, "min", 3, "", "the elementwise minimum of two operands is minimum(a, b) (NaN propagates) or fmin(a, b) (NaN is ignored)"},
      {C::Call, "max", 3, "", "the elementwise maximum of two operands is maximum(a, b) (NaN propagates) or fmax(a, b) (NaN is ignored)"},
      {C::Call, "copy", 1, "", "assignment copies: write '{target} = {args}'"},
      {C::Call, "copy", -1, "", "assignment copies: write e.g. 'out = x'"},
      {C::Method, "copy", 0, "", "assignment copies: write '{target} = {obj}'"},
      // complex(re, im) is a function of the language; complex(x) would be a cast of unstated width.
      {C::Call, "complex", 1, "'complex' is ambiguous",
       "write complex128 (Python's complex) or complex64 to convert, or complex(re, im) from two parts"},
      {C::Call, "complex", -1, "'complex' takes 2 arguments (re, im)", "a complex number from its parts is complex(re, im)"},
      {C::Call, "cabs", -1, "", "write abs({args}) (a complex argument gives its magnitude)"},
      {C::Call, "labs", -1, "", "write abs({args})"},
      {C::Call, "llabs", -1, "", "write abs({args})"},
      {C::Call, "ln", -1, "", "write log({args}) (the natural logarithm)"},
      {C::Call, "sgn", -1, "", "write sign({args})"},
      {C::Call, "gamma", -1, "", "write tgamma({args}) (lgamma is its logarithm)"},
      {C::Call, "clamp", 3, "", "write clip({args})"},
      {C::Call, "rsqrt", 1, "", "write 1 / sqrt({args})"},
      {C::Call, "len", -1, "", "n is the number of elements; size(x) that of a raw parameter"},
      {C::Module, "size", -1, "", "n is the number of elements; size(x) that of a raw parameter"},
      {C::Call, "angle", 1, "", "write arctan2(imag({args}), real({args}))"},  // NumPy's angle, cmath's phase
      {C::Call, "phase", 1, "", "write arctan2(imag({args}), real({args}))"},
      {C::Call, "fix", -1, "", "write trunc({args}) (rounds toward zero)"},
      {C::Call, "around", -1, "", "write round({args})"},
      // Python's spellings of constants.
      {C::Name, "True", -1, "", "write 'true'"},
      {C::Name, "False", -1, "", "write 'false'"},
      {C::Name, "None", -1, "", "there is no None: values are numbers (nan marks a missing float)"},
      {C::Name, "NaN", -1, "", "write 'nan'"},
      {C::Name, "NAN", -1, "", "write 'nan'"},
      {C::Name, "Inf", -1, "", "write 'inf'"},
      {C::Name, "INF", -1, "", "write 'inf'"},
      {C::Name, "Infinity", -1, "", "write 'inf'"},
      {C::Name, "INFINITY", -1, "", "write 'inf'"},
      {C::Name, "HUGE_VAL", -1, "", "write 'inf'"},
      {C::Name, "M_PI", -1, "", "write 'pi'"},
      {C::Name, "PI", -1, "", "write 'pi'"},
      {C::Name, "M_E", -1, "", "write 'e'"},
      // Python's word operators, and `//`.
      {C::Infix, "and", -1, "", "write '&&' (logical and)"},
      {C::Infix, "or", -1, "", "write '||' (logical or)"},
      {C::Infix, "if", -1, "Python's conditional expression is not part of the language", "write 'c ? a : b' or where(c, a, b)"},
      {C::Infix, "//", -1, "'//' after an operand is neither floor division nor a comment",
       "floor division is floor_divide({args}); to comment, end the statement with ';' first"},
      {C::Prefix, "not", -1, "", "write '!' (logical not)"},
      {C::Prefix, "lambda", -1, "lambda is not part of the language",
       "write the lambda's body as a statement, e.g. 'out = x * 2'"},
      // Keyword arguments (NumPy's ufunc keywords first).
      {C::Keyword, "out", -1, "", "assign the result instead: '{value} = {callee}({args})'"},
      {C::Keyword, "dtype", -1, "", "convert the arguments with {value}(...) instead"},
      {C::Keyword, "axis", -1, "", "axis= belongs to reductions (sum, mean, max, ...); '{callee}' is elementwise"},
      {C::Keyword, "keepdims", -1, "", "keepdims= belongs to reductions (sum, mean, max, ...); '{callee}' is elementwise"},
      {C::Keyword, "a_min", -1, "", "clip takes its bounds by position: clip(x, lo, hi)"},
      {C::Keyword, "a_max", -1, "", "clip takes its bounds by position: clip(x, lo, hi)"},
      {C::Keyword, "where", -1, "", "write where(mask, {callee}(...), other)"},
      // Any other `name=` inside a call: a comparison typed with one '=' as often as a keyword.
      {C::Keyword, "", -1, "assignment inside an expression",
       "did you mean '=='? (keyword arguments are not part of the language: pass arguments by position)"},
      // Methods and attributes the language writes as functions.
      {C::Method, "real", -1, "", "write 'real({obj})'"},
      {C::Method, "imag", -1, "", "write 'imag({obj})'"},
      {C::Method, "astype", 1, "", "cast with a call: '{a}({obj})'"},
      // Characters: Python's matrix product, comment and line continuation.
      {C::Char, "@", -1, "", "'@' is matrix multiplication, which is not elementwise; the elementwise product is '*'"},
      {C::Char, "#", -1, "", "a comment is '/* ... */', or '//' at the start of a line or after ';'"},
      {C::Char, "\\", -1, "", "a statement continues on the next line after a binary operator or inside parentheses"},
      // Python's compound assignments that the language has no operator for.
      {C::Assign, "**=", -1, "", "write '{target} = {target} ** {a}'"},
      {C::Assign, "//=", -1, "", "write '{target} = floor_divide({target}, {args})'"},
  };
  // np.sum(x, 0): NumPy's second argument of a reduction is the axis.
  for (std::string_view r : {"sum", "prod", "min", "max", "amin", "amax", "mean", "var", "std", "any", "all", "argmin",
                             "argmax", "nansum", "nanprod", "nanmean", "nanvar", "nanstd", "nanmin", "nanmax",
                             "nanargmin", "nanargmax"})
    t.push_back({C::Module, std::string(r), 2, "", "write '" + std::string(r) + "({a}, axis={b})' (NumPy's second argument is the axis)"});
  for (std::string_view r : kReductions) {
    t.push_back({C::Call, std::string(r), -1, "", std::string(kReduction)});
    t.push_back({C::Method, std::string(r), -1, "", std::string(kReduction)});
  }
  for (std::string_view r : kScans) {
    std::string hint = "'{name}' combines each element with the ones before it, and a program is elementwise (one result per element)";
    t.push_back({C::Call, std::string(r), -1, "", hint});
    t.push_back({C::Method, std::string(r), -1, "", hint});
  }
  for (std::string_view p : kProducts)
    t.push_back({C::Call, std::string(p), -1, "",
                 "'{name}' combines many elements, and a program is elementwise; the elementwise product is '*'"});
  for (const OperatorUfunc& u : kOperatorUfuncs)
    t.push_back({C::Call, std::string(u.name), -1, "",
                 u.arity == 2 ? fmt::format("write '{{a}} {} {{b}}' (NumPy's {} is the operator '{}')", u.op, u.name, u.op)
                              : fmt::format("write '{}{{a}}' (NumPy's {} is the operator '{}')", u.op, u.name, u.op)});
  return t;
}

const std::vector<Entry>& table() {
  static const std::vector<Entry> t = build_table();
  return t;
}

std::string_view default_message(Context c) {
  switch (c) {
    case Context::Call: return "unknown function '{name}'";
    case Context::Name: return "unknown name '{name}'";
    case Context::Infix:
    case Context::Prefix: return "Python's '{name}' is not part of the language";
    case Context::Module: return "module prefix '{name}.' is not part of the language";
    case Context::Method: return "'.{name}': the language has no attributes or methods";
    case Context::Keyword: return "keyword argument '{name}=' is not part of the language";
    case Context::Char: return "unexpected character '{name}'";
    case Context::Assign: return "'{name}' is not an assignment operator";
  }
  return "";
}

std::string join(const std::vector<std::string>& v) {
  std::string s;
  for (std::size_t k = 0; k < v.size(); ++k) s += (k ? ", " : "") + v[k];
  return s;
}

// Table texts are format strings; the program's text goes in as arguments, so
// braces a user typed are never read as placeholders.
std::string format(std::string_view text, const Fill& f) {
  auto atom = [&](std::size_t k, const char* placeholder) { return k < f.atoms.size() ? f.atoms[k] : std::string(placeholder); };
  return fmt::format(fmt::runtime(text), fmt::arg("name", f.name), fmt::arg("args", join(f.args)),
                     fmt::arg("a", atom(0, "a")), fmt::arg("b", atom(1, "b")), fmt::arg("c", atom(2, "c")),
                     fmt::arg("obj", f.obj), fmt::arg("callee", f.callee), fmt::arg("value", f.value),
                     fmt::arg("target", f.target.empty() ? std::string_view("out") : f.target));
}

const Entry* find(Context c, std::string_view key, int nargs) {
  for (const Entry& e : table())
    if (e.context == c && e.key == key && (e.nargs == -1 || e.nargs == nargs)) return &e;
  return nullptr;
}

constexpr std::string_view kModules[] = {"np", "numpy", "math", "cmath", "cp", "cupy"};
constexpr std::string_view kConstants[] = {"pi", "e", "inf", "nan"};

bool is_language_name(std::string_view n) {
  if (find_builtin(n) || dtype_from_name(n)) return true;
  for (auto c : kConstants)
    if (c == n) return true;
  return false;
}

}  // namespace

std::optional<Hint> lookup(Context context, std::string_view key, int nargs, const Fill& fill) {
  const Entry* e = find(context, key, nargs);
  if (!e && context == Context::Keyword) e = find(context, "", nargs);
  if (!e) return std::nullopt;
  return Hint{format(e->message.empty() ? default_message(context) : std::string_view(e->message), fill),
              format(e->hint, fill)};
}

bool has_row(Context context, std::string_view key) {
  for (const Entry& e : table())
    if (e.context == context && e.key == key) return true;
  return false;
}

std::vector<Row> rows() {
  std::vector<Row> v;
  for (const Entry& e : table()) v.push_back({e.context, e.key, e.nargs});
  return v;
}

std::optional<Hint> call_hint(std::string_view name, int nargs, const Fill& fill) {
  if (find_builtin(name)) return std::nullopt;
  return lookup(Context::Call, name, nargs, fill);
}

bool is_module(std::string_view name) {
  for (auto m : kModules)
    if (m == name) return true;
  return false;
}

Hint module_hint(std::string_view module, std::string_view attr, int nargs, const Fill& fill) {
  Fill named = fill;
  named.name = module;
  std::string message = format(default_message(Context::Module), named);
  Fill inner = fill;
  inner.name = attr;
  // The module's own meaning first (np.min(x, 1) reduces over an axis; np.size counts elements).
  if (auto h = lookup(Context::Module, attr, nargs, inner)) return {message, h->hint};
  if (is_language_name(attr)) return {message, fmt::format("write '{}'", attr)};
  if (auto h = lookup(fill.called ? Context::Call : Context::Name, attr, nargs, inner)) return {message, h->hint};
  return {message, fill.called ? unknown_function_hint(attr) : std::string()};
}

Hint attribute_hint(std::string_view attr, int nargs, const Fill& fill) {
  std::string message = format(default_message(Context::Method), fill);
  if (auto h = lookup(Context::Method, attr, nargs, fill)) return {message, h->hint};
  // CuPy's ElementwiseKernel index object: its size and position are the language's n and i
  // (size(_ind) would name a reserved word).
  if (fill.obj == "_ind" && attr == "size") return {message, "CuPy's _ind.size() is 'n' here: write 'n'"};
  if (fill.obj == "_ind" && attr == "get") return {message, "CuPy's _ind.get()[0] is 'i' here: write 'i'"};
  // A method that is a function of the language: `x.conj()` is conj(x), `x.sum(axis=0)` sum(x, axis=0).
  const Builtin* b = find_builtin(attr);
  if (b && fill.called && b->is_reduction())
    return {message, fmt::format("write '{}({}{}{})'", attr, fill.obj, fill.args.empty() ? "" : ", ", join(fill.args))};
  if (b && fill.called && nargs + 1 >= b->min_args && nargs + 1 <= b->max_args) {
    std::string call = fmt::format("{}({}", attr, fill.obj);
    for (const std::string& a : fill.args) call += ", " + a;
    return {message, "write '" + call + ")'"};
  }
  return {message, ""};
}

std::string unknown_function_hint(std::string_view name) {
  // C's float variants (sinf, powf, fabsf): the argument's dtype decides here.
  if (name.size() > 1 && name.back() == 'f' && find_builtin(name.substr(0, name.size() - 1)))
    return fmt::format("write '{}': the argument's dtype decides the precision (float32 in, float32 out)",
                       name.substr(0, name.size() - 1));
  auto names = builtin_names();
  std::string best = closest_name(name, names.data(), names.size());
  return best.empty() ? "" : "did you mean '" + best + "'?";
}

std::string string_hint(std::string_view contents) {
  if (dtype_from_name(contents)) return fmt::format("a dtype is written as a name: {}", contents);
  return "";
}

namespace {

// Python's two-operand min and max inside `e`, renamed to NumPy's minimum and
// maximum in `text` (e's source), so a hint that quotes an argument suggests
// a program that checks: min(max(x, 0), 1) -> minimum(maximum(x, 0), 1).
void rename_minmax(const Expr& e, std::size_t base, std::string& text) {
  // Innermost first: a rename lengthens the text after the name only.
  for (auto it = e.args.rbegin(); it != e.args.rend(); ++it) rename_minmax(**it, base, text);
  if (e.kind == Expr::Call && e.args.size() == 2 && (e.name == "min" || e.name == "max") &&
      e.op_span.begin >= base && e.op_span.end - e.op_span.begin == 3)
    text.replace(e.op_span.begin - base, 3, e.name == "min" ? "minimum" : "maximum");
}

std::string suggestion_text(std::string_view source, const Expr& e) {
  std::string text(source.substr(e.span.begin, e.span.end - e.span.begin));
  rename_minmax(e, e.span.begin, text);
  return text;
}

}  // namespace

void add_arg(Fill& fill, std::string_view source, const Expr& e) {
  fill.args.push_back(suggestion_text(source, e));
  fill.atoms.push_back(operand_text(source, e));
}

std::string operand_text(std::string_view source, const Expr& e) {
  std::string text = suggestion_text(source, e);
  bool atomic = e.parenthesized || e.kind == Expr::Name || e.kind == Expr::Literal || e.kind == Expr::Call ||
                e.kind == Expr::Index;
  return atomic ? text : "(" + text + ")";
}

}  // namespace cujit::hints

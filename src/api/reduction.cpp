#include "cujit/reduction.hpp"

#include <map>
#include <mutex>
#include <shared_mutex>

#include "api/elementwise_access.hpp"
#include "core/fail.hpp"
#include "core/names.hpp"
#include "lang/diagnostic.hpp"
#include "lang/lex.hpp"
#include "lang/parse.hpp"

namespace cujit {

namespace {

// The reductions a reduce_expr may name, and the language's name of each.
enum class Reducer { Sum, Prod, Max, Min, NanMax, NanMin, Any, All, BitOr, BitAnd };

const char* const kSupported =
    "write one of: a + b (sum), a * b (prod), max(a, b) or maximum(a, b), min(a, b) or minimum(a, b), "
    "fmax(a, b) or fmin(a, b) (NaN ignored), a || b (any), a && b (all), and on bool a | b, a & b";

std::string trim(std::string_view s) {
  std::size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  return b == std::string_view::npos ? std::string() : std::string(s.substr(b, e - b + 1));
}

Span trimmed_span(std::string_view s) {
  std::size_t b = s.find_first_not_of(" \t\r\n"), e = s.find_last_not_of(" \t\r\n");
  if (b == std::string_view::npos) return Span{0, static_cast<std::uint32_t>(s.size())};
  return Span{static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(e + 1)};
}

// The tokens' text without spacing and without one pair of enclosing
// parentheses; empty when the lexer refuses the text.
std::string canonical(const std::string& text) {
  std::string out;
  try {
    for (const Token& t : tokenize(text))
      if (t.kind != Tok::End && t.kind != Tok::Newline) out += t.text;
  } catch (const Error&) {
    return {};
  }
  if (out.size() > 2 && out.front() == '(' && out.back() == ')') out = out.substr(1, out.size() - 2);
  return out;
}

// CuPy's reduce_expr, recognised as one of the language's reductions.
Reducer reduction_of(const std::string& name, const std::string& reduce_expr) {
  static const std::map<std::string, Reducer> forms = [] {
    std::map<std::string, Reducer> f;
    auto both = [&f](const std::string& l, const std::string& r, Reducer op) {
      f[l + "a" + r + "b" + (l.empty() ? "" : ")")] = op;
      f[l + "b" + r + "a" + (l.empty() ? "" : ")")] = op;
    };
    both("", "+", Reducer::Sum);
    both("", "*", Reducer::Prod);
    both("", "||", Reducer::Any);
    both("", "&&", Reducer::All);
    both("", "|", Reducer::BitOr);
    both("", "&", Reducer::BitAnd);
    for (const char* fn : {"max", "maximum"}) both(std::string(fn) + "(", ",", Reducer::Max);
    for (const char* fn : {"min", "minimum"}) both(std::string(fn) + "(", ",", Reducer::Min);
    both("fmax(", ",", Reducer::NanMax);
    both("fmin(", ",", Reducer::NanMin);
    return f;
  }();
  auto it = forms.find(canonical(reduce_expr));
  if (it == forms.end())
    program_error(reduce_expr, trimmed_span(reduce_expr),
                  "kernel '" + name + "': reduce_expr is not a reduction cujit knows", kSupported);
  return it->second;
}

// A number or bool spelled as CuPy's identity strings are: 0, 0.0, -1, 1.0f,
// true, and a C++ functional cast of one, T(0).
std::optional<double> identity_value(const std::string& identity) {
  std::vector<Token> toks;
  try {
    toks = tokenize(identity);
  } catch (const Error&) {
    return std::nullopt;
  }
  std::size_t k = 0, end = toks.size() - 1;  // toks.back() is End
  if (end >= 3 && toks[0].kind == Tok::Ident && toks[1].kind == Tok::LParen && toks[end - 1].kind == Tok::RParen)
    k = 2, end -= 1;
  double sign = 1;
  if (k < end && toks[k].kind == Tok::Op && toks[k].text == "-") sign = -1, ++k;
  if (k + 1 != end) return std::nullopt;
  const Token& t = toks[k];
  if (t.kind == Tok::Int && t.suffix != Suffix::Imag) return sign * static_cast<double>(t.int_value);
  if (t.kind == Tok::Float) return sign * t.float_value;
  if (t.kind == Tok::Ident && sign > 0 && (t.text == "true" || t.text == "True")) return 1.0;
  if (t.kind == Tok::Ident && sign > 0 && (t.text == "false" || t.text == "False")) return 0.0;
  return std::nullopt;
}

void check_identity(const std::string& name, Reducer op, const std::string& identity) {
  if (trim(identity).empty() || op == Reducer::Max || op == Reducer::Min || op == Reducer::NanMax || op == Reducer::NanMin) return;
  const bool one = op == Reducer::Prod || op == Reducer::All || op == Reducer::BitAnd;
  const char* what = op == Reducer::Sum ? "a sum" : op == Reducer::Prod ? "a product" : one ? "all" : "any";
  std::optional<double> v = identity_value(identity);
  if (!v || *v != (one ? 1.0 : 0.0))
    fail(ErrorCode::Usage,
         "kernel '{}': identity '{}' is not the identity of {}, {}: cujit's reductions start from their operation's "
         "identity; write '{}' or leave it empty",
         name, quoted_text(trim(identity)), what, one ? 1 : 0, one ? 1 : 0);
}

// map_expr goes inside the reduction's parentheses: it must be one
// expression there, not close them or add arguments or statements.
void check_map(const std::string& name, const std::string& map_expr) {
  if (trim(map_expr).empty())
    fail(ErrorCode::Usage, "kernel '{}': map_expr is empty; write the expression to reduce, e.g. 'x * x'", name);
  int depth = 0;
  for (const Token& t : tokenize(map_expr)) {
    if (t.kind == Tok::LParen || t.kind == Tok::LBracket) ++depth;
    if (t.kind == Tok::RParen || t.kind == Tok::RBracket) --depth;
    const bool top = depth == 0 && t.kind != Tok::End;
    if (depth < 0 || (top && (t.kind == Tok::Comma || t.kind == Tok::Semi || t.kind == Tok::Newline ||
                              t.kind == Tok::Assign || t.kind == Tok::CompoundAssign)))
      program_error(map_expr, t.span, "kernel '" + name + "': map_expr must be one expression",
                    "write an expression of the in_params, e.g. 'x * x'; the outputs are assigned in post_map_expr");
  }
}

using Params = std::vector<std::pair<std::string, std::string>>;  // name, declared type

// post_map_expr assigns the outputs only (and typed locals): an input
// assigned there would be updated in place with a value of the reduced shape.
void check_post_map(const std::string& name, const std::string& post_map, const Params& params, std::size_t nin,
                    const TypeNames& placeholders) {
  for (const Stmt& s : parse(post_map, placeholders).stmts) {
    bool output = false;
    for (std::size_t k = nin; k < params.size(); ++k) output = output || params[k].first == s.target;
    if (!output && !s.declared)
      program_error(post_map, s.target_span,
                    "kernel '" + name + "': post_map_expr assigns '" + s.target + "', which is not an output",
                    "assign the out_params from the reduced value a, e.g. '" + params[nin].first + " = a'");
  }
}

// CuPy's post_map_expr often divides by _in_ind.size() (a mean): say what to write instead.
void check_no_cupy_indexers(const std::string& name, const std::string& text) {
  if (text.find("_in_ind") != std::string::npos || text.find("_out_ind") != std::string::npos)
    fail(ErrorCode::Usage,
         "kernel '{}': CuPy's _in_ind and _out_ind are not part of cujit's language; for a mean, reduce with the "
         "language's own (cujit::evaluate(\"y = mean(x, axis=1)\")), or divide by a count passed as an input",
         name);
}

const char* reduction_name(Reducer op) {
  switch (op) {
    case Reducer::Sum: return "sum";
    case Reducer::Prod: return "prod";
    case Reducer::Max: return "max";
    case Reducer::Min: return "min";
    case Reducer::NanMax: return "nanmax";
    case Reducer::NanMin: return "nanmin";
    case Reducer::Any: case Reducer::BitOr: return "any";
    case Reducer::All: case Reducer::BitAnd: return "all";
  }
  return "";
}

std::string axis_text(const Axes& axes) {
  if (!axes.list) return {};
  if (axes.single && axes.list->size() == 1) return "axis=" + std::to_string(axes.list->front());
  std::string t = "axis=(";
  for (std::size_t k = 0; k < axes.list->size(); ++k) t += (k ? ", " : "") + std::to_string((*axes.list)[k]);
  return t + (axes.list->size() == 1 ? ",)" : ")");
}

}  // namespace

struct ReductionKernel::Impl {
  std::string name, in_params, out_params, map_expr, reduce_expr, post_map, reduce_type;
  Reducer op = Reducer::Sum;
  ElementwiseOptions options;
  std::unique_ptr<ElementwiseKernel> base;  // the program over every axis: parameters and syntax checked once
  std::optional<DType> fixed_type;          // reduce_type when it is a dtype name

  mutable std::shared_mutex mu;
  mutable std::map<std::string, std::unique_ptr<ElementwiseKernel>> kernels;  // by axes, keepdims and reduce dtype

  // The program: the reduced value `a`, then post_map_expr.
  std::string program(DType rt, const ReduceOptions& r) const {
    const std::string t(dtype_name(rt));
    if ((op == Reducer::BitOr || op == Reducer::BitAnd) && rt != DType::Bool)
      fail(ErrorCode::Usage,
           "kernel '{}': reduce_expr '{}' is bitwise on {}, and cujit has no bitwise reductions (on bool it is "
           "{}); write '{}' for the logical one",
           name, trim(reduce_expr), t, op == Reducer::BitOr ? "any" : "all", op == Reducer::BitOr ? "a || b" : "a && b");
    std::string args = op == Reducer::Sum || op == Reducer::Prod ? map_expr + ", dtype=" + t : t + "(" + map_expr + ")";
    if (r.axis.list) args += ", " + axis_text(r.axis);
    if (r.keepdims) args += ", keepdims=true";
    return t + " a = " + reduction_name(op) + "(" + args + ")\n" + post_map;
  }
  // The reduce dtype of a call with these arguments.
  DType reduce_dtype(const Arg* args, std::size_t count) const {
    if (fixed_type) return *fixed_type;
    if (auto t = ElementwiseAccess::bound(*base, reduce_type, args, count)) return *t;
    fail(ErrorCode::Usage,
         "kernel '{}': reduce_type '{}' is bound by no argument; pass an array of placeholder {} (or the output "
         "arrays), or name a dtype as reduce_type",
         name, reduce_type, reduce_type);
  }

  const ElementwiseKernel& kernel(DType rt, const ReduceOptions& r) const {
    std::string key = axis_text(r.axis) + (r.keepdims ? "|k|" : "||") + std::string(dtype_name(rt));
    {
      std::shared_lock<std::shared_mutex> lock(mu);
      auto it = kernels.find(key);
      if (it != kernels.end()) return *it->second;
    }
    auto k = std::make_unique<ElementwiseKernel>(in_params, out_params, program(rt, r), name, options);
    std::unique_lock<std::shared_mutex> lock(mu);
    auto& slot = kernels[key];
    if (!slot) slot = std::move(k);
    return *slot;
  }
};

ReductionKernel::ReductionKernel(const std::string& in_params, const std::string& out_params,
                                 const std::string& map_expr, const std::string& reduce_expr,
                                 const std::string& post_map_expr, const std::string& identity,
                                 const std::string& name, const std::string& reduce_type, ReductionOptions options)
    : impl_(std::make_unique<Impl>()) {
  Impl& m = *impl_;
  m.name = name;
  m.in_params = in_params;
  m.out_params = out_params;
  m.map_expr = trim(map_expr);
  m.reduce_expr = reduce_expr;
  m.options.fast_math = options.fast_math;
  m.options.arch = options.arch;
  m.options.stream = options.stream;
  m.options.device = options.device;
  m.options.nvrtc_options = std::move(options.nvrtc_options);
  check_name(name, "kernel name");
  m.op = reduction_of(name, reduce_expr);
  check_identity(name, m.op, identity);
  check_map(name, map_expr);
  for (const std::string* e : {&map_expr, &post_map_expr}) check_no_cupy_indexers(name, *e);
  auto params = ElementwiseAccess::parse_params(in_params, "in_params");
  const std::size_t nin = params.size();
  for (auto& p : ElementwiseAccess::parse_params(out_params, "out_params")) params.push_back(std::move(p));
  if (params.size() == nin)
    fail(ErrorCode::Usage, "kernel '{}': out_params declares no output; declare the reduced result, e.g. 'T y'", name);
  TypeNames placeholders;
  for (const auto& [pname, type] : params) {
    if (pname == "a")
      fail(ErrorCode::Usage, "kernel '{}': parameter name 'a' is taken: it is the reduced value in post_map_expr", name);
    if (!dtype_from_numpy(type)) placeholders.emplace_back(type, DType::Float64);
  }
  m.reduce_type = trim(reduce_type).empty() ? params[nin].second : trim(reduce_type);
  m.fixed_type = dtype_from_numpy(m.reduce_type);
  bool known = m.fixed_type.has_value();
  for (const auto& [ph, t] : placeholders) known = known || ph == m.reduce_type;
  if (!known)
    fail(ErrorCode::Usage, "kernel '{}': reduce_type '{}' is neither a dtype name nor a placeholder of the parameters",
         name, quoted_text(m.reduce_type));
  m.post_map = trim(post_map_expr).empty() && params.size() == nin + 1 ? params[nin].first + " = a" : post_map_expr;
  check_post_map(name, m.post_map, params, nin, placeholders);
  // The whole program over every axis, checked now where the types are known.
  // A placeholder reduce_type stands for any dtype while only the syntax is read (bool for `a | b`, which needs it).
  const bool bitwise = m.op == Reducer::BitOr || m.op == Reducer::BitAnd;
  const DType stand_in = m.fixed_type.value_or(bitwise ? DType::Bool : DType::Float64);
  m.base = std::make_unique<ElementwiseKernel>(in_params, out_params, m.program(stand_in, ReduceOptions{}), name,
                                               m.options);
}

ReductionKernel::~ReductionKernel() = default;
ReductionKernel::ReductionKernel(ReductionKernel&&) noexcept = default;
ReductionKernel& ReductionKernel::operator=(ReductionKernel&&) noexcept = default;

const std::string& ReductionKernel::name() const { return impl_->name; }

OutputArrays ReductionKernel::call(std::initializer_list<Arg> args, const ReduceOptions& options) const {
  return call(args.begin(), args.size(), options);
}

OutputArrays ReductionKernel::call(const Arg* args, std::size_t count, const ReduceOptions& options) const {
  const Impl& m = *impl_;
  CallOptions co;
  co.stream = options.stream;
  const std::size_t nin = m.base->num_inputs(), nout = m.base->num_outputs();
  // A wrong count: ElementwiseKernel's error, before any argument is read.
  if (count != nin && count != nin + nout) return ElementwiseAccess::run(*m.base, args, count, co, true);
  return ElementwiseAccess::run(m.kernel(m.reduce_dtype(args, count), options), args, count, co, true);
}

}  // namespace cujit

#include "lang/parse.hpp"

#include <algorithm>
#include <cctype>
#include <limits>
#include <string>

#include <fmt/format.h>

#include "cujit/error.hpp"
#include "core/fail.hpp"
#include "lang/builtins.hpp"
#include "lang/hints.hpp"
#include "lang/lex.hpp"
#include "lang/hints.hpp"
#include "lang/lex.hpp"
#include "core/limits.hpp"

namespace cujit {

namespace {

bool is_comparison(Op op) { return op >= Op::Lt && op <= Op::Ne; }

// Every stage walks the tree recursively; the bounds in limits.hpp keep a
// hostile program from exhausting the stack (parser nesting, and the tree's height).

class Parser {
 public:
  Parser(std::string_view src, const TypeNames& placeholders) : src_(src), toks_(tokenize(src)), placeholders_(placeholders) {}

  // program = [stmt] ((";" | NEWLINE) [stmt])*
  Ast program() {
    Ast ast;
    ast.source = std::string(src_);
    while (true) {
      while (at(Tok::Semi) || at(Tok::Newline)) ++pos_;
      if (at(Tok::End)) break;
      if (ast.stmts.size() == kMaxStatements)
        program_error(src_, peek().span, fmt::format("too many statements (the limit is {})", kMaxStatements),
                      "split the program into several programs");
      ast.stmts.push_back(stmt());
      if (!at(Tok::Semi) && !at(Tok::Newline) && !at(Tok::End)) unexpected_after_statement();
    }
    if (ast.stmts.empty())
      program_error(src_, peek().span, "empty program", "write at least one statement, e.g. 'out = x * 2'");
    return ast;
  }

 private:
  const Token& peek(int ahead = 0) const {
    std::size_t k = pos_ + static_cast<std::size_t>(ahead);
    return k < toks_.size() ? toks_[k] : toks_.back();
  }
  bool at(Tok k) const { return peek().kind == k; }
  bool at_op(std::string_view text) const { return peek().kind == Tok::Op && peek().text == text; }
  const Token& next() { return toks_[pos_ < toks_.size() - 1 ? pos_++ : pos_]; }
  // A binary operator may end a line: the expression continues on the next one.
  void skip_newlines() {
    while (at(Tok::Newline)) ++pos_;
  }

  std::string_view text(Span s) const { return src_.substr(s.begin, s.end - s.begin); }
  static std::string_view trim(std::string_view t) {
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.front()))) t.remove_prefix(1);
    while (!t.empty() && std::isspace(static_cast<unsigned char>(t.back()))) t.remove_suffix(1);
    return t;
  }

  // Parses ahead only to quote the program in a hint: where that fails, the
  // hint stays generic, and the error reported is still the first one.
  template <class F>
  auto attempt(F parse) -> std::optional<decltype(parse())> {
    std::size_t pos = pos_;
    try {
      return parse();
    } catch (const Error&) {
      pos_ = pos;
      return std::nullopt;
    }
  }

  [[noreturn]] void report(Span span, const hints::Hint& h) { program_error(src_, span, h.message, h.hint); }

  std::string describe(const Token& t) const {
    switch (t.kind) {
      case Tok::End: return "end of program";
      case Tok::Newline: return "end of line";
      default: return "'" + std::string(t.text) + "'";
    }
  }

  [[noreturn]] void unexpected_after_statement() {
    const Token& t = peek();
    if (t.kind == Tok::Assign || t.kind == Tok::CompoundAssign)
      program_error(src_, t.span, "assignment inside an expression", "did you mean '=='?");
    program_error(src_, t.span, "unexpected " + describe(t) + " after the end of a statement",
                  "separate statements with ';' or a new line");
  }

  // stmt = [TYPE] IDENT ("=" | "+=" | "-=" | ... | ">>=") expr
  Stmt stmt() {
    Stmt s;
    const Token& first = peek();
    if (first.kind != Tok::Ident) {
      program_error(src_, first.span, "expected a statement, found " + describe(first),
                    "a statement assigns an expression to a name, e.g. 'out = x * 2'");
    }
    s.span = first.span;
    if (peek(1).kind == Tok::Ident) {  // a typed local: `float32 t = ...`
      const Token& type = next();
      s.declared = type_name(type);
      s.declared_span = type.span;
    }
    const Token& target = next();
    if (target.kind != Tok::Ident)
      program_error(src_, target.span, "expected a name after the type, found " + describe(target));
    s.target = std::string(target.text);
    s.target_span = target.span;
    target_ = target.text;
    const Token& eq = peek();
    if (eq.kind == Tok::Assign) {
      ++pos_;
    } else if (eq.kind == Tok::CompoundAssign) {
      ++pos_;
      if (s.declared) program_error(src_, eq.span, "a typed declaration cannot use '" + std::string(eq.text) + "'",
                                    "declare with '=' first");
      s.compound = binary_op(eq.text.substr(0, eq.text.size() - 1));
    } else if (eq.kind == Tok::Op && (eq.text == "**=" || eq.text == "//=")) {
      // Python's `x **= 2` and `x //= 2`: say what to write, quoting the operand.
      Span op = next().span;
      hints::Fill fill;
      fill.name = eq.text;
      fill.target = s.target;
      skip_newlines();
      if (auto rhs = attempt([&] { return expr(); })) {
        hints::add_arg(fill, src_, **rhs);
      } else {
        fill.args = fill.atoms = {"b"};
      }
      report(op, *hints::lookup(hints::Context::Assign, text(op), -1, fill));
    } else if (eq.kind == Tok::Op && eq.text == "==") {
      program_error(src_, eq.span, "expected '=' after '" + s.target + "', found '=='",
                    "'==' compares; assign with '='");
    } else {
      program_error(src_, eq.span, "expected '=' after '" + s.target + "', found " + describe(eq),
                    "a statement assigns an expression to a name, e.g. '" + s.target + " = x * 2'");
    }
    skip_newlines();
    s.expr = expr();
    s.span = join(s.span, s.expr->span);
    return s;
  }

  DType type_name(const Token& t) {
    for (const auto& [name, dtype] : placeholders_)
      if (name == t.text) return dtype;
    auto dt = dtype_from_name(t.text);
    if (dt) return *dt;
    check_ambiguous_type(t);
    program_error(src_, t.span, "unknown type '" + std::string(t.text) + "'", type_hint(t.text));
  }

  void check_ambiguous_type(const Token& t) {
    if (t.text == "float")
      program_error(src_, t.span, "'float' is ambiguous", "write float32 (C's float) or float64 (Python's float)");
    if (t.text == "int")
      program_error(src_, t.span, "'int' is ambiguous", "write int32 (C's int) or int64 (NumPy's default int)");
    if (t.text == "long")
      program_error(src_, t.span, "'long' is ambiguous", "write int64");
    if (t.text == "unsigned")
      program_error(src_, t.span, "'unsigned' is ambiguous", "write uint32 or uint64");
  }

  std::string type_hint(std::string_view name) {
    // NumPy's other spellings (f4, single, np.float32) name the type by its name in a program.
    if (auto t = dtype_from_numpy(name)) return "write '" + std::string(dtype_name(*t)) + "': a program names dtypes by name";
    static constexpr std::string_view kTypes[] = {
        "bool", "int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64", "float16",
        "bfloat16", "float32", "float64", "complex64", "complex128", "double", "half"};
    std::string c = closest_name(name, kTypes, std::size(kTypes));
    return c.empty() ? "types are bool, int8..int64, uint8..uint64, float16, bfloat16, float32, float64, complex64, complex128"
                     : "did you mean '" + c + "'?";
  }

  static Op binary_op(std::string_view t) {
    static const std::pair<std::string_view, Op> kOps[] = {
        {"+", Op::Add}, {"-", Op::Sub}, {"*", Op::Mul}, {"/", Op::Div}, {"%", Op::Mod},
        {"**", Op::Pow}, {"<<", Op::Shl}, {">>", Op::Shr}, {"<", Op::Lt}, {"<=", Op::Le},
        {">", Op::Gt}, {">=", Op::Ge}, {"==", Op::Eq}, {"!=", Op::Ne}, {"&", Op::BitAnd},
        {"^", Op::BitXor}, {"|", Op::BitOr}, {"&&", Op::And}, {"||", Op::Or}};
    for (auto& [text, op] : kOps)
      if (text == t) return op;
    fail(ErrorCode::Internal, "parse: no operator '{}'", t);
  }

  [[gnu::noinline]] ExprPtr sized(ExprPtr e) {
    for (const auto& a : e->args) e->depth = std::max(e->depth, a->depth + 1);
    if (e->depth > kMaxDepth)
      program_error(src_, e->span, "expression too deep (more than " + std::to_string(kMaxDepth) + " levels)",
                    "split it into statements with locals");
    return e;
  }

  struct Nest {
    int& level;
    Nest(int& l, Parser& p, Span at) : level(l) {
      if (++level > kMaxNesting)
        program_error(p.src_, at, "expression nested too deeply (more than " + std::to_string(kMaxNesting) + " levels)",
                      "split it into statements with locals");
    }
    ~Nest() { --level; }
  };

  [[gnu::noinline]] ExprPtr make_binary(Op op, Span op_span, ExprPtr a, ExprPtr b) {
    auto e = std::make_unique<Expr>();
    e->kind = Expr::Binary;
    e->op = op;
    e->op_span = op_span;
    e->span = join(a->span, b->span);
    e->args.push_back(std::move(a));
    e->args.push_back(std::move(b));
    return sized(std::move(e));
  }

  // expr = ternary
  ExprPtr expr() {
    Nest guard(nesting_, *this, peek().span);
    return ternary();
  }

  // ternary = logor ["?" ternary ":" ternary]
  ExprPtr ternary() {
    ExprPtr c = binary(0);
    if (!at(Tok::Question)) return c;
    Span q = next().span;
    Nest guard(nesting_, *this, q);  // `c ? x : d ? y : ...` nests one level per link
    skip_newlines();
    ExprPtr a = ternary();
    skip_newlines();
    if (!at(Tok::Colon))
      program_error(src_, peek().span, "expected ':' in conditional expression, found " + describe(peek()),
                    "write 'c ? a : b'");
    ++pos_;
    skip_newlines();
    ExprPtr b = ternary();
    auto e = std::make_unique<Expr>();
    e->kind = Expr::Ternary;
    e->op_span = q;
    e->span = join(c->span, b->span);
    e->args.push_back(std::move(c));
    e->args.push_back(std::move(a));
    e->args.push_back(std::move(b));
    return sized(std::move(e));
  }

  // Binary levels, lowest first (all left-associative):
  //   logor = logand ("||" logand)*        logand = bitor ("&&" bitor)*
  //   bitor = bitxor ("|" bitxor)*         bitxor = bitand ("^" bitand)*
  //   bitand = equality ("&" equality)*    equality = relational (("=="|"!=") relational)*
  //   relational = shift (("<"|"<="|">"|">=") shift)*
  //   shift = additive (("<<"|">>") additive)*
  //   additive = term (("+"|"-") term)*   term = unary (("*"|"/"|"%") unary)*
  // Precedence climbing: one frame per rise in precedence instead of one per
  // level, so that each parenthesis costs a few small frames (a sanitizer
  // build makes frames large, and nesting is bounded by frames, not bytes).
  // Each rise counts as one level of nesting.
  static int level_of(const Token& t) {
    static const std::vector<std::vector<std::string_view>> kLevels = {
        {"||"}, {"&&"}, {"|"}, {"^"}, {"&"}, {"==", "!="}, {"<", "<=", ">", ">="},
        {"<<", ">>"}, {"+", "-"}, {"*", "/", "%"}};
    if (t.kind != Tok::Op) return -1;
    for (std::size_t l = 0; l < kLevels.size(); ++l)
      for (auto o : kLevels[l])
        if (o == t.text) return static_cast<int>(l);
    return -1;
  }
  static constexpr int kTermLevel = 9;  // the innermost: * / %

  ExprPtr binary(int level) { return binary_rest(level, unary()); }

  // The operators of `level` and tighter that follow `lhs`, left-associative.
  // after_operand sees every operand end with the longest term ending there
  // (`x * y` in `x * y // z`): where Python's `//`, `and`, `or`, `if` may follow.
  ExprPtr binary_rest(int level, ExprPtr lhs) {
    while (true) {
      after_operand(*lhs);
      const int l = level_of(peek());
      if (l < level) return lhs;
      std::string_view t = peek().text;
      Span op_span = next().span;
      skip_newlines();
      ExprPtr rhs = unary();
      while (true) {
        if (l != kTermLevel) after_operand(*rhs);  // at the term level, the loop head sees the whole term
        if (level_of(peek()) <= l) break;
        Nest guard(nesting_, *this, peek().span);
        rhs = binary_rest(l + 1, std::move(rhs));
      }
      Op op = binary_op(t);
      if (is_comparison(op)) check_chain(lhs.get(), op_span, rhs.get());
      lhs = make_binary(op, op_span, std::move(lhs), std::move(rhs));
    }
  }

  // Where an operator must follow `lhs`: Python's `//` (floor division, which
  // the language spells floor_divide; never a silent comment here) and word
  // operators. Any name there is an error anyway, so the hint is certain.
  void after_operand(const Expr& lhs) {
    const Token& t = peek();
    if (t.kind == Tok::Op && t.text == "//") {
      Span op = next().span;
      hints::Fill fill;
      fill.name = "//";
      hints::add_arg(fill, src_, lhs);
      if (auto rhs = attempt([&] { return unary(); })) {
        hints::add_arg(fill, src_, **rhs);
      } else {
        fill.args.push_back("b");
        fill.atoms.push_back("b");
      }
      report(op, *hints::lookup(hints::Context::Infix, "//", -1, fill));
    }
    if (t.kind == Tok::Ident) {
      hints::Fill fill;
      fill.name = t.text;
      if (auto h = hints::lookup(hints::Context::Infix, t.text, -1, fill)) report(t.span, *h);
    }
  }

  // C reads `a < b < c` as `(a < b) < c`, Python as `a < b and b < c`: neither
  // reading is safe to guess, so an unparenthesized chain is an error.
  [[gnu::noinline]] void check_chain(const Expr* lhs, Span op_span, const Expr* rhs) {
    if (lhs->kind != Expr::Binary || !is_comparison(lhs->op) || lhs->parenthesized) return;
    const Expr* b = lhs->args[1].get();
    auto text = [&](Span s) { return std::string(src_.substr(s.begin, s.end - s.begin)); };
    std::string hint = "write '(" + text(lhs->span) + ") && (" + text({b->span.begin, rhs->span.end}) + ")'";
    program_error(src_, {lhs->span.begin, op_span.end}, "chained comparison", hint);
  }

  // unary = ("-" | "+" | "!" | "~") unary | power
  ExprPtr unary() {
    if (peek().kind == Tok::Op) {
      std::string_view t = peek().text;
      Op op;
      if (t == "-") op = Op::Neg;
      else if (t == "+") op = Op::Pos;
      else if (t == "!") op = Op::Not;
      else if (t == "~") op = Op::BitNot;
      else return power();
      Span s = next().span;
      Nest guard(nesting_, *this, s);
      ExprPtr a = unary();
      auto e = std::make_unique<Expr>();
      e->kind = Expr::Unary;
      e->op = op;
      e->op_span = s;
      e->span = join(s, a->span);
      e->args.push_back(std::move(a));
      return sized(std::move(e));
    }
    return power();
  }

  // power = postfix ["**" unary]     (right-associative through unary: 2**-x**2 == 2**(-(x**2)))
  ExprPtr power() {
    ExprPtr base = postfix();
    if (!at_op("**")) return base;
    Span s = next().span;
    Nest guard(nesting_, *this, s);  // `a ** b ** ...` nests one level per operator
    skip_newlines();
    ExprPtr exponent = unary();
    return make_binary(Op::Pow, s, std::move(base), std::move(exponent));
  }

  // postfix = primary ("(" [expr ("," expr)*] ")" | "[" expr "]")*
  ExprPtr postfix() {
    ExprPtr e = primary();
    while (true) {
      if (at(Tok::LParen)) {
        if (e->kind != Expr::Name || e->parenthesized)
          program_error(src_, peek().span, "only functions and casts can be called",
                        "put an operator between the two expressions, e.g. '*'");
        Span open = next().span;
        auto call = std::make_unique<Expr>();
        call->kind = Expr::Call;
        call->name = e->name;
        call->op_span = e->span;
        const Builtin* callee = find_builtin(e->name);
        if (callee && callee->is_reduction()) reduction_arguments(*call);
        else arguments(call->args, e->name, e->span);
        expect_close(Tok::RParen, ")", open);
        call->span = {e->span.begin, toks_[pos_ - 1].span.end};
        e = sized(std::move(call));
      } else if (at(Tok::LBracket)) {
        Span open = next().span;
        auto idx = std::make_unique<Expr>();
        idx->kind = Expr::Index;
        idx->op_span = open;
        if (e->kind != Expr::Name)
          program_error(src_, open, "only raw parameters can be indexed", "index a parameter declared 'raw', e.g. 'x[i]'");
        idx->name = e->name;
        idx->args.push_back(std::move(e));
        if (at(Tok::RBracket)) program_error(src_, peek().span, "missing index inside '[]'");
        idx->args.push_back(expr());
        if (at(Tok::Comma))
          program_error(src_, peek().span, "raw parameters take one flat index",
                        "compute the flat index, e.g. 'x[r * ncols + c]'");
        expect_close(Tok::RBracket, "]", open);
        idx->span = {idx->args[0]->span.begin, toks_[pos_ - 1].span.end};
        e = sized(std::move(idx));
      } else if (at_op(".")) {
        attribute(*e);
      } else {
        return e;
      }
    }
  }

  // arguments = [arg ("," arg)*]     arg = expr | IDENT "=" expr (an error: keywords)
  void arguments(std::vector<ExprPtr>& args, std::string_view callee, Span callee_span) {
    if (at(Tok::RParen)) return;
    while (true) {
      if (at(Tok::Ident) && peek(1).kind == Tok::Assign) keyword_argument(args, callee, callee_span);
      args.push_back(expr());
      if (!at(Tok::Comma)) return;
      ++pos_;
    }
  }

  // A reduction's arguments: positional ones first, then NumPy's keywords
  // (`sum(x, axis=(0, 2), keepdims=true)`). Which keywords a reduction takes,
  // and their values, are check's to judge.
  void reduction_arguments(Expr& call) {
    if (at(Tok::RParen)) return;
    while (true) {
      if (at(Tok::Ident) && peek(1).kind == Tok::Assign) {
        Keyword kw;
        kw.name = std::string(peek().text);
        kw.name_span = next().span;
        ++pos_;  // '='
        keyword_value(kw);
        call.kwargs.push_back(std::move(kw));
      } else {
        // `sum(x, axis=0,)`: a trailing comma is C's error, not an argument out of place.
        if (!call.kwargs.empty() && at(Tok::RParen))
          program_error(src_, peek().span, "expected an argument after ',', found ')'", "drop the comma before ')'");
        if (!call.kwargs.empty())
          program_error(src_, peek().span, "positional argument after a keyword argument",
                        "put the array first, e.g. 'sum(x, axis=0)'");
        call.args.push_back(expr());
      }
      if (!at(Tok::Comma)) return;
      ++pos_;
    }
  }

  // A keyword's value: an expression, or a tuple `(0, 2)` / `(1,)` / `()`.
  void keyword_value(Keyword& kw) {
    if (at(Tok::LParen)) {
      std::size_t save = pos_;
      Span open = next().span;
      if (at(Tok::RParen)) {  // `axis=()`: no axis, as NumPy's
        kw.tuple = true;
        kw.value_span = {open.begin, next().span.end};
        return;
      }
      ExprPtr first = expr();
      if (at(Tok::Comma)) {
        kw.tuple = true;
        kw.items.push_back(std::move(first));
        while (at(Tok::Comma)) {
          ++pos_;
          if (at(Tok::RParen)) break;
          kw.items.push_back(expr());
        }
        expect_close(Tok::RParen, ")", open);
        kw.value_span = {open.begin, toks_[pos_ - 1].span.end};
        return;
      }
      pos_ = save;  // a parenthesized expression
    }
    kw.items.push_back(expr());
    kw.value_span = kw.items.back()->span;
  }

  // `sum(x, axis=0)`, `sin(x, out=y)`: the function's own hint first (a
  // reduction is the real problem there), else the keyword's.
  [[noreturn]] void keyword_argument(const std::vector<ExprPtr>& args, std::string_view callee, Span callee_span) {
    const Token& kw = peek();
    hints::Fill fill;
    fill.callee = callee;
    fill.target = target_;
    for (const auto& a : args) hints::add_arg(fill, src_, *a);
    fill.name = callee;
    if (auto h = hints::call_hint(callee, -1, fill)) report(callee_span, *h);
    fill.name = kw.text;
    // The value as a name, `np.` dropped (`dtype=np.float32`).
    int v = peek(2).kind == Tok::Ident && hints::is_module(peek(2).text) && peek(3).kind == Tok::Op && peek(3).text == "." &&
                    peek(4).kind == Tok::Ident
                ? 4
                : 2;
    fill.value = peek(v).kind == Tok::Ident ? peek(v).text : std::string_view("out");
    // A keyword NumPy has: under `name=`; any other name: under the `=`, which may be a mistyped `==`.
    Span at = hints::has_row(hints::Context::Keyword, kw.text) ? Span{kw.span.begin, peek(1).span.end} : peek(1).span;
    report(at, *hints::lookup(hints::Context::Keyword, kw.text, -1, fill));
  }

  // `np.sin(x)`, `math.pi`, `x.real`, `x.sum()`: the language has neither
  // modules nor attributes; the hint says what to write instead.
  [[noreturn]] void attribute(const Expr& obj) {
    Span dot = next().span;
    if (!at(Tok::Ident)) program_error(src_, dot, "unexpected '.'");
    bool module = obj.kind == Expr::Name && !obj.parenthesized && hints::is_module(obj.name);
    Span attr = next().span;
    while (module && at_op(".") && peek(1).kind == Tok::Ident) {  // np.linalg.norm
      ++pos_;
      attr = next().span;
    }
    hints::Fill fill;
    fill.name = text(attr);
    // `(x + 1).imag` is imag(x + 1): the hint puts the object in a call's parentheses.
    fill.obj = obj.parenthesized ? trim(text({obj.span.begin + 1, obj.span.end - 1})) : text(obj.span);
    fill.target = target_;
    int nargs = -1;
    const Builtin* method = find_builtin(text(attr));
    if (!module && method && method->is_reduction() && at(Tok::LParen)) {
      // `x.sum(axis=0)`: the arguments as written go into the hint's call.
      fill.called = true;
      Span open = next().span;
      int depth = 1;
      while (!at(Tok::End) && !(at(Tok::RParen) && depth == 1)) {
        if (at(Tok::LParen)) ++depth;
        if (at(Tok::RParen)) --depth;
        ++pos_;
      }
      std::string inner(trim(text({open.end, peek().span.begin})));
      if (!inner.empty()) fill.args.push_back(inner);
      nargs = inner.empty() ? 0 : 1;
    } else if (at(Tok::LParen)) {
      fill.called = true;
      Span open = next().span;
      std::vector<ExprPtr> args;
      if (attempt([&] {
            arguments(args, text(attr), attr);
            expect_close(Tok::RParen, ")", open);
            return true;
          })) {
        nargs = static_cast<int>(args.size());
        for (const auto& a : args) hints::add_arg(fill, src_, *a);
      }
    }
    Span span{obj.span.begin, attr.end};
    report(span, module ? hints::module_hint(obj.name, text(attr), nargs, fill) : hints::attribute_hint(text(attr), nargs, fill));
  }

  void expect_close(Tok kind, const char* text, Span open) {
    if (at(kind)) {
      ++pos_;
      return;
    }
    const Token& t = peek();
    if (t.kind == Tok::Assign)
      program_error(src_, t.span, "assignment inside an expression", "did you mean '=='?");
    if (t.kind == Tok::End || t.kind == Tok::Newline || t.kind == Tok::Semi)
      program_error(src_, open, std::string("unclosed '") + src_[open.begin] + "'",
                    std::string("add '") + text + "'");
    // Inside brackets a statement goes on across lines, so a missing ')' shows
    // lines later: the statement at fault is the one that opened it.
    if (src_.substr(open.begin, t.span.begin - open.begin).find('\n') != std::string_view::npos)
      program_error(src_, open, std::string("unclosed '") + src_[open.begin] + "'",
                    std::string("add '") + text + "' (the next lines were read as part of it, up to " + describe(t) + ")");
    program_error(src_, t.span, std::string("expected '") + text + "', found " + describe(t),
                  t.kind == Tok::Comma ? "too many arguments, or a missing operator?" : "");
  }

  // primary = NUMBER | IDENT | "(" expr ")"
  ExprPtr primary() {
    const Token& t = peek();
    auto e = std::make_unique<Expr>();
    e->span = t.span;
    switch (t.kind) {
      case Tok::Int:
      case Tok::Float:
        ++pos_;
        literal(t, *e);
        return e;
      case Tok::Ident: {
        // `not x`, `lambda x: ...`: a word before an operand is an error
        // anyway (names may still be called `not` or `lambda`).
        Tok after = peek(1).kind;
        if (after == Tok::Ident || after == Tok::Int || after == Tok::Float || after == Tok::LParen) {
          hints::Fill fill;
          fill.name = t.text;
          if (auto h = hints::lookup(hints::Context::Prefix, t.text, -1, fill)) report(t.span, *h);
        }
        ++pos_;
        e->kind = Expr::Name;
        e->name = std::string(t.text);
        return e;
      }
      case Tok::LParen: {
        Span open = next().span;
        if (at(Tok::RParen)) program_error(src_, {open.begin, peek().span.end}, "empty parentheses");
        ExprPtr inner = expr();
        expect_close(Tok::RParen, ")", open);
        inner->parenthesized = true;
        inner->span = {open.begin, toks_[pos_ - 1].span.end};
        return inner;
      }
      case Tok::Assign:
        program_error(src_, t.span, "assignment inside an expression", "did you mean '=='?");
      default:
        break;
    }
    if (t.kind == Tok::Op && (t.text == "**" || t.text == "*" || t.text == "/" || t.text == "%"))
      program_error(src_, t.span, "expected an expression before '" + std::string(t.text) + "'");
    if (t.kind == Tok::Op && t.text == "//")
      program_error(src_, t.span, "expected an expression, found '//'",
                    "a '//' comment starts a line or follows ';'");
    program_error(src_, t.span, "expected an expression, found " + describe(t));
  }

  void literal(const Token& t, Expr& e) {
    e.kind = Expr::Literal;
    Value& v = e.value;
    if (t.suffix == Suffix::Imag) {
      v.kind = Value::Complex;
      v.c = {0.0, t.float_value};  // the lexer reads every imaginary literal as a float
      return;
    }
    if (t.kind == Tok::Float) {
      v.kind = Value::Float;
      v.f = t.float_value;
      if (t.suffix == Suffix::F32) {
        v.f = static_cast<double>(static_cast<float>(t.float_value));
        e.suffix_type = DType::Float32;
      }
      return;
    }
    v.kind = Value::Int;
    std::uint64_t u = t.int_value;
    auto too_big = [&](const char* type, const char* max) {
      program_error(src_, t.span, std::string("integer literal does not fit in ") + type + " (the largest is " + max + ")");
    };
    switch (t.suffix) {
      case Suffix::U32:
        if (u > 0xffffffffull) too_big("uint32", "4294967295");
        e.suffix_type = DType::UInt32;
        break;
      case Suffix::I64:
        if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
          too_big("int64", "9223372036854775807");
        e.suffix_type = DType::Int64;
        break;
      case Suffix::U64:
        e.suffix_type = DType::UInt64;
        break;
      default:
        break;
    }
    if (u > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max())) {
      v.big = true;
      v.u = u;
    } else {
      v.i = static_cast<std::int64_t>(u);
    }
  }

  std::string_view src_;
  std::vector<Token> toks_;
  const TypeNames& placeholders_;
  std::size_t pos_ = 0;
  int nesting_ = 0;
  std::string_view target_;  // the statement being parsed (for hints)
};

}  // namespace

Ast parse(std::string_view source, const TypeNames& placeholders) { return Parser(source, placeholders).program(); }

namespace {
void collect_indexed(const Expr& e, std::set<std::string>& out) {
  if (e.kind == Expr::Index) out.insert(e.name);
  for (const auto& a : e.args) collect_indexed(*a, out);
}
}  // namespace

std::set<std::string> indexed_names(const Ast& ast) {
  std::set<std::string> out;
  for (const Stmt& s : ast.stmts)
    if (s.expr) collect_indexed(*s.expr, out);
  return out;
}

}  // namespace cujit

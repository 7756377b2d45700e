#include "parse.hpp"

#include <algorithm>
#include <limits>
#include <string>

#include "lex.hpp"

namespace cujit {

namespace {

bool is_comparison(Op op) { return op >= Op::Lt && op <= Op::Ne; }

// Every stage walks the tree recursively; these bounds keep a hostile program
// from exhausting the stack (parser nesting, and the tree's height).
constexpr int kMaxNesting = 200;
constexpr int kMaxDepth = 1000;

class Parser {
 public:
  explicit Parser(std::string_view src) : src_(src), toks_(tokenize(src)) {}

  // program = [stmt] ((";" | NEWLINE) [stmt])*
  Ast program() {
    Ast ast;
    ast.source = std::string(src_);
    while (true) {
      while (at(Tok::Semi) || at(Tok::Newline)) ++pos_;
      if (at(Tok::End)) break;
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
    const Token& eq = peek();
    if (eq.kind == Tok::Assign) {
      ++pos_;
    } else if (eq.kind == Tok::CompoundAssign) {
      ++pos_;
      if (s.declared) program_error(src_, eq.span, "a typed declaration cannot use '" + std::string(eq.text) + "'",
                                    "declare with '=' first");
      s.compound = binary_op(eq.text.substr(0, eq.text.size() - 1));
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
    return Op::Add;
  }

  ExprPtr sized(ExprPtr e) {
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

  ExprPtr make_binary(Op op, Span op_span, ExprPtr a, ExprPtr b) {
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
  ExprPtr binary(int level) {
    static const std::vector<std::vector<std::string_view>> kLevels = {
        {"||"}, {"&&"}, {"|"}, {"^"}, {"&"}, {"==", "!="}, {"<", "<=", ">", ">="},
        {"<<", ">>"}, {"+", "-"}, {"*", "/", "%"}};
    if (level == static_cast<int>(kLevels.size())) return unary();
    ExprPtr lhs = binary(level + 1);
    while (peek().kind == Tok::Op) {
      std::string_view t = peek().text;
      bool match = false;
      for (auto o : kLevels[level]) match = match || o == t;
      if (!match) break;
      Span op_span = next().span;
      skip_newlines();
      ExprPtr rhs = binary(level + 1);
      Op op = binary_op(t);
      if (is_comparison(op)) check_chain(lhs.get(), op_span, rhs.get());
      lhs = make_binary(op, op_span, std::move(lhs), std::move(rhs));
    }
    return lhs;
  }

  // C reads `a < b < c` as `(a < b) < c`, Python as `a < b and b < c`: neither
  // reading is safe to guess, so an unparenthesized chain is an error.
  void check_chain(const Expr* lhs, Span op_span, const Expr* rhs) {
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
        if (!at(Tok::RParen)) {
          while (true) {
            call->args.push_back(expr());
            if (at(Tok::Comma)) {
              ++pos_;
              continue;
            }
            break;
          }
        }
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
      } else {
        return e;
      }
    }
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
      case Tok::Ident:
        ++pos_;
        e->kind = Expr::Name;
        e->name = std::string(t.text);
        return e;
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
  std::size_t pos_ = 0;
  int nesting_ = 0;
};

}  // namespace

Ast parse(std::string_view source) { return Parser(source).program(); }

}  // namespace cujit

// hints: what NumPy, Python and C users type that the language spells
// differently, and the hint each deserves. One table (hints.cpp) serves the
// lexer, the parser and the checker, so a name gets the same hint wherever it
// is met. The edit-distance guess ("did you mean") is the fallback where no
// entry applies, and only when it is unambiguous (docs/language.md, "Hints").
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cujit {

struct Expr;

namespace hints {

// Where a word was met; each entry of the table applies in one context.
enum class Context {
  Call,     // `f(...)` where f is no function of the language: key f
  Name,     // a name that is nothing the program knows: key the name
  Infix,    // a word or `//` right after an operand (`a and b`, `x // 2`)
  Prefix,   // a word right before an operand (`not x`, `lambda x: ...`)
  Module,   // `np.sin`: key the module (np, numpy, math, ...)
  Method,   // `x.real`, `x.sum()`: key the attribute
  Keyword,  // `f(x, axis=0)`: key the keyword
  Char,     // a character that is not part of the language: key the character
  Assign,   // `x **= 2`: key the operator
};

// The program's own text, substituted into an entry's message and hint.
struct Fill {
  std::string_view name;    // the word as typed (`{name}`)
  std::vector<std::string> args;   // argument texts as typed (`{args}`: all of them)
  std::vector<std::string> atoms;  // the same as operands (`{a}` `{b}` `{c}`): parenthesized where needed
  std::string_view obj;     // `{obj}`: what `.attr` was applied to
  std::string_view callee;  // `{callee}`: the function a keyword was given to
  std::string_view value;   // `{value}`: a keyword's value
  std::string_view target;  // `{target}`: the statement's target
  bool called = false;      // Module and Method: followed by `(...)`
};

struct Hint {
  std::string message, hint;
};

// The table's entry for `key` in `context` (with `nargs` arguments where the
// entry depends on it; -1 when unknown), formatted with `fill`.
std::optional<Hint> lookup(Context context, std::string_view key, int nargs, const Fill& fill);

// Whether the table has a row of its own for `key` in `context`.
bool has_row(Context context, std::string_view key);

// lookup(Context::Call, ...) for a name that is no function of the language;
// nullopt for the language's own functions.
std::optional<Hint> call_hint(std::string_view name, int nargs, const Fill& fill);

// Every row of the table (for the test that reaches each one from a program).
struct Row {
  Context context;
  std::string key;
  int nargs;
};
std::vector<Row> rows();

// Whether `name` is a module prefix the table knows (np, numpy, math, ...).
bool is_module(std::string_view name);

// The message and hint for `module.attr` (`np.sin`, `math.pi`, `np.sum(x)`).
Hint module_hint(std::string_view module, std::string_view attr, int nargs, const Fill& fill);

// The message and hint for `obj.attr` (`x.real`, `x.sum()`, `x.astype(float32)`).
Hint attribute_hint(std::string_view attr, int nargs, const Fill& fill);

// The hint for an unknown function that no entry names: C's float variants
// (`sinf` is `sin`), else the unambiguous near miss among the functions.
std::string unknown_function_hint(std::string_view name);

// The hint for a string literal (`"float32"` is the dtype float32), or "".
std::string string_hint(std::string_view contents);

// An expression's source text as an operand of a binary operator: in
// parentheses unless it is a name, literal, call, index or parenthesized.
std::string operand_text(std::string_view source, const Expr& e);

// Appends an argument's text to fill.args and fill.atoms.
void add_arg(Fill& fill, std::string_view source, const Expr& e);

}  // namespace hints
}  // namespace cujit

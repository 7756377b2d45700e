// lex: program text -> tokens. Newlines are statement separators, so they are
// tokens too, except inside parentheses or brackets where they are spacing.
#pragma once
#include <cstdint>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "lang/diagnostic.hpp"

namespace cujit {

enum class Tok {
  End, Newline, Semi, Ident, Int, Float,
  LParen, RParen, LBracket, RBracket, Comma, Question, Colon,
  Assign, CompoundAssign,  // `=`, and `+=` ... `>>=` (text holds the operator)
  Op,                      // every other operator; text holds it
};

// Literal suffixes: `f` float32; `u` uint32; `l`/`ll` int64; `ul`/`ull` uint64;
// `j` imaginary (Python's complex literal).
enum class Suffix { None, F32, U32, I64, U64, Imag };

struct Token {
  Tok kind = Tok::End;
  std::string_view text;  // exact source text
  Span span;
  Suffix suffix = Suffix::None;
  std::uint64_t int_value = 0;  // Int: the magnitude (any value up to 2^64-1)
  double float_value = 0;       // Float (and Int with suffix j)
};

std::vector<Token> tokenize(std::string_view source);

}  // namespace cujit

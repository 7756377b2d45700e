#include "lang/lex.hpp"

#include "lang/hints.hpp"
#include <cctype>
#include <fmt/format.h>
#include <charconv>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>
#include <system_error>

#include "lang/hints.hpp"
#include "core/number.hpp"

#include "core/fail.hpp"
#include "core/limits.hpp"
#include "core/names.hpp"

namespace cujit {

namespace {

// ASCII only, never <cctype>: isalpha and tolower follow the C locale, and
// under a Latin-1 locale isalpha('\xe9') is true, which would let 'é' into
// an identifier (and into the generated CUDA source).
bool ascii_alpha(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool ascii_digit(char c) { return c >= '0' && c <= '9'; }
char ascii_lower(char c) { return c >= 'A' && c <= 'Z' ? static_cast<char>(c - 'A' + 'a') : c; }
bool ident_start(char c) { return ascii_alpha(c) || c == '_'; }
bool ident_char(char c) { return ascii_alpha(c) || ascii_digit(c) || c == '_'; }

// Longest match first, so `<<=` is not read as `<<` `=`. `**=`, `//=`, `//`
// and `.` are no operators of the language: they are tokens so that the parser
// can say what a Python or NumPy user meant by them (src/lang/hints.cpp).
constexpr std::string_view kOperators[] = {
    "<<=", ">>=", "**=", "//=", "**", "//", "<<", ">>", "<=", ">=", "==", "!=", "&&", "||",
    "+=", "-=", "*=", "/=", "%=", "&=", "|=", "^=",
    "+", "-", "*", "/", "%", "<", ">", "&", "|", "^", "!", "~", "=",
    "(", ")", "[", "]", ",", "?", ":", ";", ".",
};

class Lexer {
 public:
  explicit Lexer(std::string_view src) : src_(src) {}

  std::vector<Token> run() {
    std::vector<Token> out;
    int depth = 0;
    while (true) {
      skip_space_and_comments(depth);
      if (pos_ >= src_.size()) break;
      char c = src_[pos_];
      line_start_ = false;
      after_operand_ = true;  // reset below for everything but names, numbers and closing brackets
      if (c == '\n') {
        after_operand_ = false;
        out.push_back(make(Tok::Newline, pos_, pos_ + 1));
        ++pos_;
        line_start_ = true;
        continue;
      }
      if (ident_start(c)) {
        std::size_t b = pos_;
        while (pos_ < src_.size() && ident_char(src_[pos_])) ++pos_;
        if (pos_ - b > kMaxNameLength)
          program_error(src_, {static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(pos_)},
                        fmt::format("name of {} characters; the limit is {}", pos_ - b, kMaxNameLength),
                        "use a shorter name");
        out.push_back(make(Tok::Ident, b, pos_));
        continue;
      }
      if (ascii_digit(c) ||
          (c == '.' && pos_ + 1 < src_.size() && ascii_digit(src_[pos_ + 1]))) {
        out.push_back(number());
        continue;
      }
      Token t = punct();
      if (t.kind == Tok::LParen || t.kind == Tok::LBracket) ++depth;
      if ((t.kind == Tok::RParen || t.kind == Tok::RBracket) && depth > 0) --depth;
      line_start_ = t.kind == Tok::Semi;
      after_operand_ = t.kind == Tok::RParen || t.kind == Tok::RBracket;
      out.push_back(t);
    }
    out.push_back(make(Tok::End, src_.size(), src_.size()));
    return out;
  }

 private:
  Token make(Tok k, std::size_t b, std::size_t e) {
    Token t;
    t.kind = k;
    t.text = src_.substr(b, e - b);
    t.span = {static_cast<std::uint32_t>(b), static_cast<std::uint32_t>(e)};
    return t;
  }

  // `//` is a comment only where no operand can precede it: at the start of a
  // line (after spaces, tabs or `/* */` comments) or after `;` (the contract).
  // Elsewhere it stays a token, and the parser reports it: NumPy users read
  // `x // 2` as floor division, and a silent comment would compute `x`. Inside
  // brackets a line continues the expression, so a line starting with `//`
  // right after an operand is Python's continuation line `(a` newline `// b)`, not
  // a comment.
  void skip_space_and_comments(int depth) {
    while (pos_ < src_.size()) {
      char c = src_[pos_];
      if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v' || (c == '\n' && depth > 0)) {
        if (c == '\n') line_start_ = true;
        ++pos_;
      } else if (line_start_ && !(depth > 0 && after_operand_) && src_.compare(pos_, 2, "//") == 0) {
        while (pos_ < src_.size() && src_[pos_] != '\n') ++pos_;
      } else if (src_.compare(pos_, 2, "/*") == 0) {
        std::size_t close = src_.find("*/", pos_ + 2);
        if (close == std::string_view::npos)
          program_error(src_, {static_cast<std::uint32_t>(pos_), static_cast<std::uint32_t>(pos_ + 2)},
                        "unterminated comment", "close it with '*/'");
        pos_ = close + 2;
      } else {
        return;
      }
    }
  }

  // number = digits ["." digits] [("e"|"E") ["+"|"-"] digits] [suffix]
  //        | "0x" hexdigits [suffix] | "0b" bindigits [suffix] | "0o" octdigits [suffix]
  Token number() {
    std::size_t b = pos_;
    bool is_float = false;
    int base = 10;
    if (src_[pos_] == '0' && pos_ + 1 < src_.size() && std::strchr("xXbBoO", src_[pos_ + 1])) {
      char k = ascii_lower(src_[pos_ + 1]);
      base = k == 'x' ? 16 : k == 'b' ? 2 : 8;
      pos_ += 2;
      while (pos_ < src_.size() && (ascii_digit(src_[pos_]) || (ascii_lower(src_[pos_]) >= 'a' && ascii_lower(src_[pos_]) <= 'f'))) ++pos_;
    } else {
      while (pos_ < src_.size() && ascii_digit(src_[pos_])) ++pos_;
      if (pos_ < src_.size() && src_[pos_] == '.') {
        is_float = true;
        ++pos_;
        while (pos_ < src_.size() && ascii_digit(src_[pos_])) ++pos_;
      }
      if (pos_ < src_.size() && (src_[pos_] == 'e' || src_[pos_] == 'E')) {
        std::size_t p = pos_ + 1;
        if (p < src_.size() && (src_[p] == '+' || src_[p] == '-')) ++p;
        if (p < src_.size() && ascii_digit(src_[p])) {
          is_float = true;
          pos_ = p;
          while (pos_ < src_.size() && ascii_digit(src_[pos_])) ++pos_;
        }
      }
    }
    std::size_t digits_end = pos_;
    while (pos_ < src_.size() && ident_char(src_[pos_])) ++pos_;
    Token t = make(is_float ? Tok::Float : Tok::Int, b, pos_);
    std::string digits(src_.substr(b, digits_end - b));
    std::string suffix(src_.substr(digits_end, pos_ - digits_end));
    for (auto& ch : suffix) ch = ascii_lower(ch);
    Span suffix_span{static_cast<std::uint32_t>(digits_end), static_cast<std::uint32_t>(pos_)};

    if (suffix == "j") {
      t.suffix = Suffix::Imag;
    } else if (suffix == "f" && is_float) {
      t.suffix = Suffix::F32;
    } else if (suffix == "f") {
      program_error(src_, t.span, "invalid suffix 'f' on integer literal",
                    "write '" + digits + ".0f' for a float32 literal");
    } else if (!is_float && (suffix == "u")) {
      t.suffix = Suffix::U32;
    } else if (!is_float && (suffix == "l" || suffix == "ll")) {
      t.suffix = Suffix::I64;
    } else if (!is_float && (suffix == "ul" || suffix == "ull" || suffix == "lu" || suffix == "llu")) {
      t.suffix = Suffix::U64;
    } else if (base == 10 && (suffix[0] == 'e')) {
      program_error(src_, t.span, "missing digits in the exponent of a float literal", "write e.g. '1e6'");
    } else if (!suffix.empty()) {
      program_error(src_, suffix_span, "invalid suffix '" + std::string(src_.substr(digits_end, pos_ - digits_end)) +
                                           "' on numeric literal",
                    is_float ? "the only float suffixes are 'f' (float32) and 'j' (imaginary)"
                             : "integer suffixes are 'u', 'l', 'll', 'ul', 'ull' and 'j'");
    }

    if (is_float || t.suffix == Suffix::Imag) {
      // Never strtod: it follows the locale (2.5 would read as 2 under de_DE).
      parse_double_prefix(digits, t.float_value);
      if (base != 10) program_error(src_, t.span, "a hexadecimal, binary or octal literal cannot be imaginary");
      return t;
    }
    if (base == 10 && digits.size() > 1 && digits[0] == '0')
      program_error(src_, t.span, "leading zeros are not allowed in decimal literals",
                    "write '0o" + digits.substr(1) + "' for an octal literal, or drop the zeros");
    std::string body = base == 10 ? digits : digits.substr(2);
    if (body.empty()) program_error(src_, t.span, "missing digits in numeric literal");
    for (char ch : body) {
      int v = ascii_digit(ch) ? ch - '0' : ascii_lower(ch) - 'a' + 10;
      if (v >= base)
        program_error(src_, t.span, "invalid digit '" + std::string(1, ch) + "' in " +
                                        (base == 16 ? "hexadecimal" : base == 8 ? "octal" : base == 2 ? "binary" : "decimal") +
                                        " literal");
    }
    if (std::from_chars(body.data(), body.data() + body.size(), t.int_value, base).ec == std::errc::result_out_of_range)
      program_error(src_, t.span, "integer literal is too large (the largest is 18446744073709551615)",
                    "write it as a float literal, e.g. '" + digits + ".0'");
    return t;
  }

  Token punct() {
    for (std::string_view op : kOperators) {
      if (src_.compare(pos_, op.size(), op) == 0) {
        Token t = make(Tok::Op, pos_, pos_ + op.size());
        pos_ += op.size();
        if (op == "(") t.kind = Tok::LParen;
        else if (op == ")") t.kind = Tok::RParen;
        else if (op == "[") t.kind = Tok::LBracket;
        else if (op == "]") t.kind = Tok::RBracket;
        else if (op == ",") t.kind = Tok::Comma;
        else if (op == "?") t.kind = Tok::Question;
        else if (op == ":") t.kind = Tok::Colon;
        else if (op == ";") t.kind = Tok::Semi;
        else if (op == "=") t.kind = Tok::Assign;
        else if (op.size() >= 2 && op.back() == '=' && op != "==" && op != "!=" && op != "<=" && op != ">=" &&
                 op != "**=" && op != "//=")
          t.kind = Tok::CompoundAssign;
        return t;
      }
    }
    Span s{static_cast<std::uint32_t>(pos_), static_cast<std::uint32_t>(pos_ + 1)};
    unsigned char c = static_cast<unsigned char>(src_[pos_]);
    if (c >= 0x80) {
      // Point at the whole UTF-8 sequence, not into the middle of it.
      std::size_t e = pos_ + 1;
      while (e < src_.size() && (static_cast<unsigned char>(src_[e]) & 0xC0) == 0x80) ++e;
      s.end = static_cast<std::uint32_t>(e);
      program_error(src_, s, "unexpected non-ASCII character", "programs are written in ASCII");
    }
    if (c == '"' || c == '\'') {
      std::size_t close = src_.find(static_cast<char>(c), pos_ + 1);
      std::size_t eol = src_.find('\n', pos_ + 1);
      if (close != std::string_view::npos && close < eol) {
        s.end = static_cast<std::uint32_t>(close + 1);
        program_error(src_, s, "strings are not part of the language",
                      hints::string_hint(src_.substr(pos_ + 1, close - pos_ - 1)));
      }
      program_error(src_, s, "strings are not part of the language");
    }
    if (c >= 0x20 && c < 0x7f) {
      hints::Fill fill;
      std::string key(1, static_cast<char>(c));
      fill.name = key;
      if (auto h = hints::lookup(hints::Context::Char, key, -1, fill)) program_error(src_, s, h->message, h->hint);
      program_error(src_, s, std::string("unexpected character '") + static_cast<char>(c) + "'");
    }
    char buf[8];
    std::snprintf(buf, sizeof buf, "0x%02x", c);
    program_error(src_, s, std::string("unexpected control character ") + buf);
  }

  std::string_view src_;
  std::size_t pos_ = 0;
  bool line_start_ = true;  // nothing but spaces and comments since the last newline or ';'
  bool after_operand_ = false;  // the last token ends an operand (a name, a number, ')' or ']')
};

}  // namespace

std::vector<Token> tokenize(std::string_view source) {
  // Every way in tokenizes first; spans are 32-bit offsets.
  if (source.size() > kMaxProgramBytes)
    fail(ErrorCode::Program,
         "error: the program is {} bytes long; the limit is {} bytes (1 MiB)\nhint: split it into several programs",
         source.size(), kMaxProgramBytes);
  return Lexer(source).run();
}

}  // namespace cujit

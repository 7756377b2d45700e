#include "core/names.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "core/fail.hpp"

namespace cujit {

const char* const kNameRule =
    "a name is 1 to 64 ASCII letters, digits and '_', starts with a letter, does not start with 'cj_' "
    "(cujit's own names) and is not a reserved word of C++ or CUDA";

namespace {

// C++20 keywords and alternative tokens, the identifiers with special meaning
// that a declaration cannot reuse, and CUDA's built-in variables. Sorted.
constexpr std::string_view kReserved[] = {
    "alignas", "alignof", "and", "and_eq", "asm", "auto", "bitand", "bitor", "blockDim", "blockIdx", "bool",
    "break", "case", "catch", "char", "char16_t", "char32_t", "char8_t", "class", "co_await", "co_return",
    "co_yield", "compl", "concept", "const", "const_cast", "consteval", "constexpr", "constinit", "continue",
    "decltype", "default", "delete", "do", "double", "dynamic_cast", "else", "enum", "explicit", "export",
    "extern", "false", "final", "float", "for", "friend", "goto", "gridDim", "if", "import", "inline", "int",
    "long", "main", "module", "mutable", "namespace", "new", "noexcept", "not", "not_eq", "nullptr", "operator",
    "or", "or_eq", "override", "private", "protected", "public", "register", "reinterpret_cast", "requires",
    "restrict", "return", "short", "signed", "sizeof", "static", "static_assert", "static_cast", "struct",
    "switch", "template", "this", "threadIdx", "thread_local", "throw", "true", "try", "typedef", "typeid",
    "typename", "union", "unsigned", "using", "virtual", "void", "volatile", "warpSize", "wchar_t", "while",
    "xor", "xor_eq",
};

bool is_reserved(std::string_view n) {
  return std::binary_search(std::begin(kReserved), std::end(kReserved), n);
}

bool letter(char c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }
bool digit(char c) { return c >= '0' && c <= '9'; }

}  // namespace

std::string quoted_text(std::string_view text) {
  constexpr std::size_t kMax = 40;
  std::string out;
  for (std::size_t k = 0; k < text.size() && k < kMax; ++k) {
    auto c = static_cast<unsigned char>(text[k]);
    if (c >= 0x20 && c < 0x7f && c != '\\') out.push_back(static_cast<char>(c));
    else out += fmt::format("\\x{:02x}", c);
  }
  if (text.size() > kMax) out += fmt::format("... ({} bytes)", text.size());
  return out;
}

std::string name_problem(std::string_view n) {
  if (n.empty()) return "it is empty";
  if (n.size() > kMaxNameLength) return fmt::format("it is {} characters long", n.size());
  for (char c : n)
    if (!(letter(c) || digit(c) || c == '_')) {
      auto u = static_cast<unsigned char>(c);
      if (u >= 0x80) return "it holds a non-ASCII byte";
      if (u < 0x20 || u == 0x7f) return fmt::format("it holds the control character \\x{:02x}", u);
      return fmt::format("it holds '{}'", c);
    }
  if (digit(n[0])) return "it starts with a digit";
  if (n[0] == '_') return "names starting with '_' are reserved";
  if (n.compare(0, 3, "cj_") == 0) return "names starting with 'cj_' are cujit's";
  if (is_reserved(n)) return fmt::format("'{}' is a reserved word of C++ or CUDA", n);
  return "";
}

void check_name(std::string_view name, std::string_view what) {
  std::string why = name_problem(name);
  if (!why.empty()) fail(ErrorCode::Usage, "{} '{}' is not a valid name: {}; {}", what, quoted_text(name), why, kNameRule);
}

}  // namespace cujit

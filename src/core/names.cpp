#include "core/names.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <iterator>

#include "core/fail.hpp"

#include <algorithm>
#include <vector>

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

namespace {
// Edit distance in half edits: substitutions, insertions, deletions and swaps
// of neighbours cost 2; a doubled letter typed or dropped (`sinn`, `fil`)
// costs 1, the commonest slip, so `sinn` is nearer `sin` than `sinh`.
std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::vector<std::size_t>> d(a.size() + 1, std::vector<std::size_t>(b.size() + 1));
  auto del = [&](std::size_t i) { return i >= 2 && a[i - 1] == a[i - 2] ? 1 : 2; };
  auto ins = [&](std::size_t j) { return j >= 2 && b[j - 1] == b[j - 2] ? 1 : 2; };
  for (std::size_t i = 1; i <= a.size(); ++i) d[i][0] = d[i - 1][0] + del(i);
  for (std::size_t j = 1; j <= b.size(); ++j) d[0][j] = d[0][j - 1] + ins(j);
  for (std::size_t i = 1; i <= a.size(); ++i)
    for (std::size_t j = 1; j <= b.size(); ++j) {
      d[i][j] = std::min({d[i - 1][j] + del(i), d[i][j - 1] + ins(j), d[i - 1][j - 1] + (a[i - 1] == b[j - 1] ? 0 : 2)});
      if (i >= 2 && j >= 2 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1]) d[i][j] = std::min(d[i][j], d[i - 2][j - 2] + 2);
    }
  return d[a.size()][b.size()];
}
}  // namespace

std::string closest_name(std::string_view name, const std::string_view* candidates, std::size_t count) {
  // Suggest only near misses (two edits for short names, four for longer
  // ones), and only a unique one: a hint is given where it is certain. The
  // search is bounded: names past kMaxSuggestLength get no suggestion, and a
  // candidate whose length differs by more than the limit cannot be within it.
  constexpr std::size_t kMaxSuggestLength = 64;
  std::size_t limit = name.size() <= 3 ? 2 : 4;
  if (name.size() > kMaxSuggestLength) return {};
  std::size_t best = std::string_view::npos;
  std::string_view pick;
  bool tie = false;
  for (std::size_t k = 0; k < count; ++k) {
    std::string_view c = candidates[k];
    if (c.size() > name.size() + limit || name.size() > c.size() + limit) continue;
    std::size_t d = edit_distance(name, c);
    if (d < best) best = d, pick = c, tie = false;
    else if (d == best && c != pick) tie = true;
  }
  return best <= limit && !tie ? std::string(pick) : std::string();
}

}  // namespace cujit

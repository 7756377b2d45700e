// Program diagnostics: the message, the source line with a caret/underline
// under the exact span, and a hint where one is certain (docs/language.md).
#pragma once
#include "core/names.hpp"  // closest_name: the "did you mean" of every diagnostic
#include <cstdint>
#include <string>
#include <string_view>

namespace cujit {

// Half-open byte range [begin, end) into the program text.
struct Span {
  std::uint32_t begin = 0, end = 0;
};

inline Span join(Span a, Span b) { return {a.begin < b.begin ? a.begin : b.begin, a.end > b.end ? a.end : b.end}; }

// Renders the diagnostic text (no trailing newline):
//   error: unknown function 'sinn'
//     out = sinn(x)*5
//           ^~~~
//   hint: did you mean 'sin'?
std::string render_diagnostic(std::string_view source, Span span, std::string_view message,
                              std::string_view hint);

// The rendered text with ANSI colours, for a terminal: "error:" bold red
// with its message bold, the caret line bold green, "hint:" bold cyan. Other
// lines pass unchanged, so any error text may be given.
std::string colorize_diagnostic(std::string_view rendered);

// Throws cujit::Error(ErrorCode::Program) carrying the rendered diagnostic.
[[noreturn]] void program_error(std::string_view source, Span span, std::string_view message,
                                std::string_view hint = {});


}  // namespace cujit

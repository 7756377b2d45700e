// Program diagnostics: the message, the source line with a caret/underline
// under the exact span, and a hint where one is certain (docs/language.md).
#pragma once
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

// Throws cujit::Error(ErrorCode::Program) carrying the rendered diagnostic.
[[noreturn]] void program_error(std::string_view source, Span span, std::string_view message,
                                std::string_view hint = {});

// The closest candidate by edit distance, or "" when none is close enough to
// suggest or two are equally close.
std::string closest_name(std::string_view name, const std::string_view* candidates, std::size_t count);

}  // namespace cujit

#include "lang/diagnostic.hpp"

#include <algorithm>
#include <string>
#include <vector>

#include "core/fail.hpp"

namespace cujit {

std::string render_diagnostic(std::string_view src, Span span, std::string_view message,
                              std::string_view hint) {
  std::size_t begin = std::min<std::size_t>(span.begin, src.size());
  std::size_t end = std::max<std::size_t>(begin, std::min<std::size_t>(span.end, src.size()));
  // At offset 0 the line is the first (rfind from npos would find the last newline).
  std::size_t line_start = begin == 0 ? std::string_view::npos : src.rfind('\n', begin - 1);
  line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
  if (begin > 0 && begin == src.size() && src[begin - 1] == '\n') line_start = begin;
  std::size_t line_end = src.find('\n', line_start);
  if (line_end == std::string_view::npos) line_end = src.size();
  std::string_view line = src.substr(line_start, line_end - line_start);
  end = std::min(end, line_end);  // underline only the first line of a multi-line span

  std::string out = "error: ";
  out += message;
  // A multi-line program names the line, since the excerpt alone does not say which one it is.
  if (src.find('\n') != std::string_view::npos && src.find('\n') + 1 < src.size()) {
    std::size_t lineno = 1 + static_cast<std::size_t>(std::count(src.begin(), src.begin() + line_start, '\n'));
    out += " (line " + std::to_string(lineno) + ")";
  }
  // A very long line (a machine-written or hostile program) shows a window
  // around the span, so a message stays a few lines whatever the input.
  constexpr std::size_t kWindow = 160, kBefore = 60;
  std::size_t show_begin = line_start, show_end = line_end;
  if (line.size() > kWindow) {
    show_begin = begin - line_start > kBefore ? begin - kBefore : line_start;
    show_end = std::min(line_end, show_begin + kWindow);
  }
  const char* lead = show_begin > line_start ? "..." : "";
  out += "\n  ";
  out += lead;
  // Control and non-ASCII bytes show as '?', one column per byte so the caret
  // still lines up: a message never carries a NUL (what() would end there) or
  // a terminal escape from the program text.
  for (std::size_t k = show_begin; k < show_end; ++k) {
    auto c = static_cast<unsigned char>(src[k]);
    out += (c < 0x20 && c != '\t') || c >= 0x7f ? '?' : static_cast<char>(c);
  }
  if (show_end < line_end) out += "...";
  out += "\n  ";
  out += std::string(std::char_traits<char>::length(lead), ' ');
  // Keep tabs so the caret lines up under the same column in any terminal.
  for (std::size_t k = show_begin; k < begin; ++k) out += src[k] == '\t' ? '\t' : ' ';
  out += '^';
  for (std::size_t k = begin + 1; k < std::min(end, show_end); ++k) out += '~';
  if (!hint.empty()) {
    // Hints may quote the program (a literal, a chain): cut, as the excerpt is.
    out += "\nhint: ";
    out += hint.size() > 2 * kWindow ? std::string(hint.substr(0, 2 * kWindow)) + "..." : std::string(hint);
  }
  return out;
}

std::string colorize_diagnostic(std::string_view text) {
  constexpr std::string_view bold = "\033[1m", red = "\033[1;31m", green = "\033[1;32m", cyan = "\033[1;36m",
                             reset = "\033[0m";
  std::string out;
  while (!text.empty()) {
    std::size_t nl = text.find('\n');
    std::string_view line = text.substr(0, nl);
    std::size_t lead = line.find_first_not_of(" \t");
    if (line.substr(0, 7) == "error: ") {
      out.append(red).append("error:").append(reset).append(" ").append(bold).append(line.substr(7)).append(reset);
    } else if (line.substr(0, 6) == "hint: ") {
      out.append(cyan).append("hint:").append(reset).append(line.substr(5));
    } else if (lead != std::string_view::npos && line[lead] == '^' &&
               line.find_first_not_of("~", lead + 1) == std::string_view::npos) {
      out.append(line.substr(0, lead)).append(green).append(line.substr(lead)).append(reset);
    } else {
      out.append(line);
    }
    if (nl == std::string_view::npos) break;
    out += '\n';
    text.remove_prefix(nl + 1);
  }
  return out;
}

void program_error(std::string_view source, Span span, std::string_view message, std::string_view hint) {
  fail(ErrorCode::Program, render_diagnostic(source, span, message, hint));
}

}  // namespace cujit

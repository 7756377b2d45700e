// In a program of several lines, a diagnostic names the line of the statement
// at fault and shows that line with the caret, whatever line it is on (the
// first included: `Q d = x` on line 1 once named the last line).
#include <string>
#include <vector>

#include "catch.hpp"
#include "cujit/error.hpp"
#include "lang/check.hpp"

using namespace cujit;

TEST_CASE("diagnostics: line and caret on the statement at fault, on every line of a program") {
  const std::vector<Param> params = {{"x", DType::Float32}, {"k", DType::Int8}};
  const std::vector<std::string> good = {"a = x * 2", "b = a + 1", "c = b - x"};
  // Each fault with the column its caret starts at.
  const std::vector<std::pair<std::string, std::size_t>> faults = {
      {"Q d = x", 0},         {"d = sinn(x)", 4},      {"d = min(x, 1)", 4},  {"d = 0 < x < 1", 4},
      {"d = x.sum()", 4},     {"d = k + 300", 8},      {"d = x ^ 2", 6},      {"int d = x", 0},
      {"d = True", 4},        {"d = x ** -k2", 10},    {"float32 x = k", 0},  {"d = (x + 1", 4},
  };
  for (const auto& [fault, column] : faults)
    for (std::size_t at = 0; at <= good.size(); ++at) {
      std::vector<std::string> lines = good;
      lines.insert(lines.begin() + static_cast<std::ptrdiff_t>(at), fault);
      std::string program;
      for (const std::string& l : lines) program += l + "\n";
      INFO("program:\n" << program);
      std::string message;
      try {
        compile_program(program, params);
      } catch (const Error& e) {
        message = e.what();
      }
      INFO("diagnostic:\n" << message);
      REQUIRE_FALSE(message.empty());
      const std::size_t first_nl = message.find('\n');
      CHECK(message.substr(0, first_nl).find("(line " + std::to_string(at + 1) + ")") != std::string::npos);
      const std::size_t second_nl = message.find('\n', first_nl + 1);
      CHECK(message.substr(first_nl + 1, second_nl - first_nl - 1) == "  " + fault);
      const std::string caret = message.substr(second_nl + 1, message.find('\n', second_nl + 1) - second_nl - 1);
      CHECK(caret.find('^') == 2 + column);
    }
}

// Golden diagnostics: the exact text of the error for each bad program in
// tests/data/diagnostics.txt (message, source line, caret under the span, hint).
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "lang/check.hpp"
#include "cujit/error.hpp"

using namespace cujit;

namespace {
struct Golden {
  std::string program, expected;
};

std::vector<Golden> load() {
  std::ifstream f(std::string(CUJIT_TEST_DATA) + "/diagnostics.txt");
  REQUIRE(f.good());
  std::vector<Golden> cases;
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("=== ", 0) == 0) {
      Golden g;
      for (std::size_t k = 4; k < line.size(); ++k) {
        if (line[k] == '\\' && k + 1 < line.size() && line[k + 1] == 'n') g.program += '\n', ++k;
        else g.program += line[k];
      }
      cases.push_back(g);
    } else if (!cases.empty()) {
      if (line.empty()) continue;
      if (!cases.back().expected.empty()) cases.back().expected += '\n';
      cases.back().expected += line;
    }
  }
  return cases;
}
}  // namespace

TEST_CASE("diagnostics match the golden texts exactly") {
  const std::vector<Param> params = {
      {"x", DType::Float32}, {"y", DType::Float32}, {"k", DType::Int8},       {"u", DType::UInt64},
      {"b", DType::Bool},    {"z", DType::Complex64}, {"r", DType::Float32, false, true}, {"q", DType::Int64}};
  auto cases = load();
  REQUIRE(cases.size() >= 40);
  for (const auto& g : cases) {
    INFO("program: " << g.program);
    try {
      compile_program(g.program, params);
      FAIL("no error raised");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::Program);
      CHECK(std::string(e.what()) == g.expected);
    }
  }
}

TEST_CASE("diagnostic rendering: caret under a span, tabs kept, multi-line programs name the line") {
  CHECK(render_diagnostic("out = sinn(x)*5", {6, 10}, "unknown function 'sinn'", "did you mean 'sin'?") ==
        "error: unknown function 'sinn'\n  out = sinn(x)*5\n        ^~~~\nhint: did you mean 'sin'?");
  CHECK(render_diagnostic("\tout = y", {7, 8}, "m", "") == "error: m\n  \tout = y\n  \t      ^");
  CHECK(render_diagnostic("a = 1\nb = c", {10, 11}, "m", "") == "error: m (line 2)\n  b = c\n      ^");
  CHECK(render_diagnostic("a = ", {4, 4}, "m", "") == "error: m\n  a = \n      ^");
}

TEST_CASE("hostile nesting is an error, not a stack overflow") {
  const std::vector<Param> params = {{"x", DType::Float32}};
  std::string parens = "out = " + std::string(100000, '(') + "x" + std::string(100000, ')');
  std::string unary = "out = " + std::string(100000, '-') + "x";
  std::string chain = "out = x";
  for (int k = 0; k < 5000; ++k) chain += " + x";
  for (const std::string* p : {&parens, &unary, &chain}) {
    try {
      compile_program(*p, params);
      FAIL("no error raised");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::Program);
      std::string first = std::string(e.what()).substr(0, std::string(e.what()).find('\n'));
      CHECK((first == "error: expression nested too deeply (more than 200 levels)" ||
             first == "error: expression too deep (more than 1000 levels)"));
    }
  }
  std::string ok = "out = x";
  for (int k = 0; k < 900; ++k) ok += " + x";
  CHECK_NOTHROW(compile_program(ok, params));
}

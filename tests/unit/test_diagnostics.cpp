// Golden diagnostics: the exact text of the error for each bad program in
// tests/data/diagnostics.txt (message, source line, caret under the span, hint).
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "check.hpp"
#include "cujit/error.hpp"
#include "hints.hpp"

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

TEST_CASE("'//' is a comment at the start of a line (after spaces or /* */) or after ';', and '/* */' anywhere") {
  const std::vector<Param> params = {{"x", DType::Float32}, {"y", DType::Float32}};
  const char* programs[] = {
      "// first line\nout = x * 2",
      "out = x * 2; // after ';'",
      "out = x * 2;// no space",
      "  \t// indented\nout = x * 2",
      "/* a */ // after a block comment at the start of a line\nout = x * 2",
      "out = where(x > 0,\n  // inside parentheses, on a line of its own\n  x * 2, x * 2)",
      "out = x *\n// between an operator and its operand\n2",
      "out = x /* anywhere */ * /* at all */ 2",
      "t = x; // a local\n// then\nout = t * 2 // comment\n",
  };
  for (const char* p : programs) {
    INFO("program: " << p);
    // The last one ends with `out = t * 2 // comment`: an error, tested below; the rest check.
    if (std::string(p).find("t * 2 //") != std::string::npos) {
      CHECK_THROWS_AS(compile_program(p, params), Error);
      continue;
    }
    Program prog = compile_program(p, params);
    REQUIRE(prog.outputs.size() == 1);
    CHECK(prog.outputs[0].name == "out");
  }
  // `out = x; // c` is one statement; the comment does not swallow a later line.
  Program two = compile_program("out = x; // c\nout2 = y", params);
  CHECK(two.outputs.size() == 2);
}

TEST_CASE("'//' after an operand is never a silent comment (floor division as NumPy users write it)") {
  const std::vector<Param> params = {{"x", DType::Float32}, {"y", DType::Float32}, {"b", DType::Bool},
                                     {"r", DType::Float32, false, true}};
  const std::string operands[] = {"x", "2", "(x)", "sin(x)", "r[i]", "x ** 2", "-x", "2.5f", "x * y"};
  const std::string separators[] = {"//", " // ", "//\t", " /* c */ // ", "  //"};
  const std::string rights[] = {"2", " note", "", " 2 // 3", "(y + 1)", " -y"};
  const std::string contexts[] = {"out = {}", "out = where(b, {}, y)", "t = 1; out = {}", "out = (\n{}\n)",
                                  "out = x\nout2 = {} + 1", "out = b ? {} : y"};
  int cases = 0;
  for (const auto& ctx : contexts)
    for (const auto& a : operands)
      for (const auto& sep : separators)
        for (const auto& rhs : rights) {
          std::string expr = a + sep + rhs;
          std::string program = ctx.substr(0, ctx.find("{}")) + expr + ctx.substr(ctx.find("{}") + 2);
          INFO("program: " << program);
          ++cases;
          try {
            compile_program(program, params);
            FAIL("no error raised");
          } catch (const Error& e) {
            CHECK(e.code() == ErrorCode::Program);
            CHECK(std::string(e.what()).rfind("error: '//' after an operand is neither floor division nor a comment", 0) == 0);
          }
        }
  CHECK(cases == 6 * 9 * 5 * 6);
  // Inside brackets a line continues the expression: a line that starts with
  // `//` after an operand is Python's continuation `(a` newline `// b)`.
  const std::string continued[] = {"out = (x\n  // 2)", "out = (x\n// 2\n)", "out = where(b, x\n // y, y)",
                                   "out = r[i\n// 2]", "out = (sin(x)\n\t// note\n)"};
  for (const auto& program : continued) {
    INFO("program: " << program);
    try {
      compile_program(program, params);
      FAIL("no error raised");
    } catch (const Error& e) {
      CHECK(std::string(e.what()).rfind("error: '//' after an operand is neither floor division nor a comment", 0) == 0);
    }
  }
}

TEST_CASE("every row of the hint table is reached from a program and gives a hint") {
  const std::vector<Param> params = {{"x", DType::Float32}, {"y", DType::Float32}};
  using hints::Context;
  for (const hints::Row& row : hints::rows()) {
    std::string args = "x";
    for (int k = 1; k < row.nargs; ++k) args += ", y";
    if (row.nargs == 0) args.clear();
    std::string program;
    switch (row.context) {
      case Context::Call: program = "out = " + row.key + "(" + args + ")"; break;
      case Context::Name: program = "out = " + row.key; break;
      case Context::Infix: program = "out = x " + row.key + " y"; break;
      case Context::Prefix: program = "out = " + row.key + " x"; break;
      case Context::Module: program = "out = np." + row.key + "(" + args + ")"; break;
      case Context::Method:
        program = "out = x." + row.key + (row.key == "real" || row.key == "imag" ? "" : "(" + (row.nargs == 1 ? std::string("float32") : "") + ")");
        break;
      case Context::Keyword: program = "out = sin(x, " + (row.key.empty() ? std::string("a_min") : row.key) + "=y)"; break;
      case Context::Char: program = "out = x " + row.key + " y"; break;
      case Context::Assign: program = "out = x; out " + row.key + " 2"; break;
    }
    INFO("program: " << program);
    try {
      compile_program(program, params);
      FAIL("no error raised");
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::Program);
      std::string what = e.what();
      auto h = what.find("\nhint: ");
      REQUIRE(h != std::string::npos);
      CHECK(what.size() > h + 7);
    }
  }
}

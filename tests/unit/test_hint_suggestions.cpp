// Every hint that suggests code suggests code that checks: the suggestion is
// put in place of the text at fault, and the program must then compile.
#include <string>
#include <vector>

#include "catch.hpp"
#include "cujit/error.hpp"
#include "lang/check.hpp"

using namespace cujit;

namespace {

struct Case {
  std::string program, fault, suggestion;
};

}  // namespace

TEST_CASE("hints: each suggestion, applied, gives a program that checks") {
  const std::vector<Param> params = {{"x", DType::Float32}, {"y", DType::Float32}, {"k", DType::Int8},
                                     {"r", DType::Float32, false, true}};
  const std::vector<Case> cases = {
      {"out = min(max(x, 0), 1)", "min(max(x, 0), 1)", "minimum(maximum(x, 0), 1)"},
      {"out = max(min(x, 1.0), min(y, 2))", "max(min(x, 1.0), min(y, 2))", "maximum(minimum(x, 1.0), minimum(y, 2))"},
      {"out = max(x, y)", "max(x, y)", "maximum(x, y)"},
      {"out = min(x * 2, y) + 1", "min(x * 2, y)", "minimum(x * 2, y)"},
      {"out = clamp(x, 0, 1)", "clamp(x, 0, 1)", "clip(x, 0, 1)"},
      {"out = clamp(max(x, y), 0, 1)", "clamp(max(x, y), 0, 1)", "clip(maximum(x, y), 0, 1)"},
      {"out = ln(x)", "ln(x)", "log(x)"},
      {"out = sgn(x)", "sgn(x)", "sign(x)"},
      {"out = np.sin(x)", "np.sin", "sin"},
      {"out = x.astype(float64)", "x.astype(float64)", "float64(x)"},
      {"out = x.conj()", "x.conj()", "conj(x)"},
      {"out = True", "True", "true"},
      {"out = x * M_PI", "M_PI", "pi"},
      {"out = x < 0 and y > 0", "and", "&&"},
      {"out = add(x, y)", "add(x, y)", "x + y"},
      {"out = r[_ind.size() - 1 - i]", "_ind.size()", "n"},
      {"f4 d = x * 2\nout = d + 1", "f4", "float32"},
      {"i8 d = k\nout = d", "i8", "int64"},
  };
  for (const Case& c : cases) {
    INFO("program: " << c.program);
    std::string message;
    try {
      compile_program(c.program, params);
    } catch (const Error& e) {
      message = e.what();
    }
    REQUIRE_FALSE(message.empty());
    INFO("diagnostic: " << message);
    const std::size_t hint = message.find("\nhint: ");
    REQUIRE(hint != std::string::npos);
    CHECK(message.find(c.suggestion, hint) != std::string::npos);
    std::string fixed = c.program;
    const std::size_t at = fixed.find(c.fault);
    REQUIRE(at != std::string::npos);
    fixed.replace(at, c.fault.size(), c.suggestion);
    INFO("fixed: " << fixed);
    CHECK_NOTHROW(compile_program(fixed, params));
  }
}

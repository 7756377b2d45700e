// An integer to a negative integer power is NumPy's ValueError: a check error
// for a literal exponent, a data error at run time from the CPU evaluator, and
// on the GPU a failure the kernel records in its error slot (the same message).
#include <cstdint>
#include <string>
#include <vector>

#include "catch.hpp"
#include "cujit/error.hpp"
#include "cujit/evaluate.hpp"
#include "gpu/codegen.hpp"
#include "plan/layout.hpp"
#include "lang/check.hpp"
#include "unit/error_of.hpp"

using namespace cujit;
using test::error_of;

namespace {
const std::string kMessage =
    "integers to negative integer powers are not allowed (an exponent is negative); make the base a float, e.g. "
    "float64(...)";
}

TEST_CASE("negative integer powers: run-time Data error on the CPU, as NumPy raises", "[eval]") {
  std::vector<std::int8_t> k = {0, 3, -2, 1};
  std::vector<std::int32_t> x = {5, 6, 7, 8};
  const ArrayView kv = ArrayView::host(k.data(), {4}), xv = ArrayView::host(x.data(), {4});
  CHECK(error_of([&] { evaluate("out = 2 ** k", {{"k", kv}}); }, ErrorCode::Data) == kMessage);
  CHECK(error_of([&] { evaluate("out = power(x, k)", {{"x", xv}, {"k", kv}}); }, ErrorCode::Data) == kMessage);
  CHECK(error_of([&] { evaluate("out = pow(x, int32(k))", {{"x", xv}, {"k", kv}}); }, ErrorCode::Data) == kMessage);
  // An input updated in place is left as it was.
  CHECK(error_of([&] { evaluate("x = x ** k", {{"x", xv}, {"k", kv}}); }, ErrorCode::Data) == kMessage);
  CHECK(x == std::vector<std::int32_t>{5, 6, 7, 8});
  // Non-negative exponents, unsigned ones and float bases are fine.
  k[2] = 2;
  auto outs = evaluate("out = 2 ** k", {{"k", kv}});
  CHECK(outs[0].array.as<std::int8_t>()[1] == 8);
  std::vector<std::uint8_t> u = {0, 1, 2};
  CHECK_NOTHROW(evaluate("out = 3 ** u", {{"u", ArrayView::host(u.data(), {3})}}));
  k[2] = -2;
  auto f = evaluate("out = 2.0 ** k", {{"k", kv}});
  CHECK(f[0].array.as<double>()[2] == 0.25);
}

TEST_CASE("negative integer powers: the kernel checks the exponent through its error slot", "[codegen]") {
  Program p = compile_program("out = 3 ** k", {Param{"k", DType::Int32}});
  CHECK(p.can_fail);
  std::string src = generate_source(p, contiguous_layout(p), "k3");
  CHECK(src.find("cj::nonneg_exponent(") != std::string::npos);
  std::int64_t err[4] = {3, 0, -2, 0};
  CHECK(kernel_error_message(p, err) == kMessage);
  // A float power, or an unsigned exponent, cannot fail.
  CHECK_FALSE(compile_program("out = 3.0 ** k", {Param{"k", DType::Int32}}).can_fail);
  CHECK_FALSE(compile_program("out = 3 ** k", {Param{"k", DType::UInt16}}).can_fail);
}

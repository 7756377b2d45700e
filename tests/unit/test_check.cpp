// Type checking: the dtype of every output for typical programs (NumPy 2.4 gives the same).
#include "catch.hpp"
#include "lang/check.hpp"
#include "cujit/error.hpp"

using namespace cujit;

namespace {
Param arr(const char* name, DType t) { return Param{name, t, false, false}; }

struct TypeCase {
  const char* program;
  std::vector<Param> inputs;
  const char* expected;  // "name:dtype name:dtype" of the outputs, in order
};

std::string outputs_of(const Program& p) {
  std::string s;
  for (const Var& v : p.outputs) s += (s.empty() ? "" : " ") + v.name + ":" + std::string(dtype_name(v.dtype));
  return s;
}
}  // namespace

TEST_CASE("output dtypes follow NumPy 2 promotion and NEP 50 weak literals") {
  const DType f32 = DType::Float32, i8 = DType::Int8, u8 = DType::UInt8, b = DType::Bool;
  const std::vector<TypeCase> cases = {
      {"out = sin(x)*5", {arr("x", f32)}, "out:float32"},
      {"out = x * 5.0", {arr("x", f32)}, "out:float32"},
      {"out = x * 2.0f", {arr("x", i8)}, "out:float32"},
      {"out = x + 1", {arr("x", i8)}, "out:int8"},
      {"out = x + 1", {arr("x", b)}, "out:int64"},
      {"out = x + 1.5", {arr("x", i8)}, "out:float64"},
      {"out = x / x", {arr("x", i8)}, "out:float64"},
      {"out = sin(x)", {arr("x", i8)}, "out:float16"},
      {"out = sin(x)", {arr("x", DType::Int16)}, "out:float32"},
      {"out = sin(x)", {arr("x", DType::Int32)}, "out:float64"},
      {"out = x + y", {arr("x", i8), arr("y", u8)}, "out:int16"},
      {"out = x + y", {arr("x", DType::Int64), arr("y", DType::UInt64)}, "out:float64"},
      {"out = x < y", {arr("x", DType::Int64), arr("y", DType::UInt64)}, "out:bool"},
      {"out = x + y", {arr("x", DType::BFloat16), arr("y", DType::Float16)}, "out:float32"},
      {"out = x + y", {arr("x", DType::BFloat16), arr("y", i8)}, "out:bfloat16"},
      {"out = x * 1j", {arr("x", f32)}, "out:complex64"},
      {"out = absolute(x)", {arr("x", DType::Complex128)}, "out:float64"},
      {"out = x % 2", {arr("x", b)}, "out:int64"},
      {"out = x % x", {arr("x", b)}, "out:int8"},
      {"out = floor(x)", {arr("x", i8)}, "out:int8"},
      {"out = 2 + 3", {}, "out:int64"},
      {"out = 1 / 2", {}, "out:float64"},
      {"out = i", {}, "out:int64"},
      {"out = x > 0 ? x : 0", {arr("x", f32)}, "out:float32"},
      {"t = x*x; out = t + 1", {arr("x", f32)}, "out:float32"},
      {"float64 t = x*x; out = t + 1", {arr("x", f32)}, "out:float64"},
      {"out = x; out += 1", {arr("x", i8)}, "out:int8"},
      {"a = x + 1; b2 = x - 1", {arr("x", f32)}, "a:float32 b2:float32"},
      {"out = isnan(x)", {arr("x", f32)}, "out:bool"},
      {"out = where(x > 0, x, 0.5)", {arr("x", DType::Int32)}, "out:float64"},
      {"out = float16(x) * 2", {arr("x", f32)}, "out:float16"},
      {"out = -x**2", {arr("x", f32)}, "out:float32"},
      {"out = 2**-1", {}, "out:float64"},
      {"out = x ** 2", {arr("x", i8)}, "out:int8"},
  };
  for (const auto& c : cases) {
    INFO(c.program);
    Program p = compile_program(c.program, c.inputs);
    CHECK(outputs_of(p) == c.expected);
  }
}

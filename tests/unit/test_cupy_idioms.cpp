// CuPy's ElementwiseKernel idioms the language carries (issue 22), on host
// arrays (the CPU evaluator): placeholder-typed locals, size= only where every
// array is raw, i and n refused as parameter names at construction, and an
// output read as CuPy's are (`y += a`) explained.
#include <string>
#include <vector>

#include "catch.hpp"
#include "cujit/elementwise.hpp"
#include "cujit/error.hpp"
#include "cujit/evaluate.hpp"
#include "unit/error_of.hpp"

using namespace cujit;
using test::error_of;

TEST_CASE("a placeholder types a local, as in CuPy's user guide", "[api][elementwise]") {
  // CuPy's squared_diff example, with the local of its guide.
  ElementwiseKernel sq("T x, T y", "T z", "T diff = x - y;\nz = diff * diff", "squared_diff");
  std::vector<float> x = {1, 2, 3}, y = {3, 2, 0.5f};
  Array z = sq(ArrayView::host(x.data(), {3}), ArrayView::host(y.data(), {3}))[0];
  CHECK(z.dtype() == DType::Float32);
  CHECK(z.as<float>()[0] == 4.0f);
  CHECK(z.as<float>()[2] == 6.25f);
  std::vector<std::int16_t> a = {1, 5}, b = {4, 1};
  Array zi = sq(ArrayView::host(a.data(), {2}), ArrayView::host(b.data(), {2}))[0];
  CHECK(zi.dtype() == DType::Int16);
  CHECK(zi.as<std::int16_t>()[1] == 16);
  // The local takes T's dtype: an int16 local truncates 2.5 as a cast does.
  ElementwiseKernel half("T x", "float64 z", "T h = x * 0.5\nz = h", "half_t");
  Array zh = half(ArrayView::host(a.data(), {2}))[0];
  CHECK(zh.as<double>()[1] == 2.0);  // int16(2.5) = 2
  // A name that is no placeholder is still an unknown type, on its line.
  CHECK(error_of([] { ElementwiseKernel("T x", "T z", "z = x\nU d = x", "k"); }, ErrorCode::Program)
            .rfind("error: unknown type 'U' (line 2)", 0) == 0);
}

TEST_CASE("CallOptions::shape only where every array is raw (CuPy's size= rule)", "[api][elementwise]") {
  std::vector<double> src = {1, 2, 3, 4, 5};
  ElementwiseKernel rev("raw T x", "T y", "y = x[n - 1 - i]", "reverse");
  CallOptions co;
  co.shape = Shape{5};
  Arg raw_args[] = {ArrayView::host(src.data(), {5})};
  CHECK(rev.call(raw_args, 1, co)[0].as<double>()[0] == 5.0);
  ElementwiseKernel add("T x, raw T r", "T y", "y = x + r[0]", "add_first");
  Arg args[] = {ArrayView::host(src.data(), {5}), ArrayView::host(src.data(), {5})};
  CHECK(error_of([&] { add.call(args, 2, co); }, ErrorCode::Usage) ==
        "kernel 'add_first': CallOptions::shape is for calls whose arrays are all raw, and 'x' is not: its shape (5,) "
        "gives the outputs' shape; drop CallOptions::shape (as CuPy refuses size= here)");
  // A scalar for the non-raw parameter leaves the shape to CallOptions.
  Arg scalar_args[] = {Arg(2.0), ArrayView::host(src.data(), {5})};
  Array y = add.call(scalar_args, 2, co)[0];
  CHECK(y.shape() == Shape{5});
  CHECK(y.as<double>()[4] == 3.0);
}

TEST_CASE("i and n as parameter names are refused at construction, placeholders or not", "[api][elementwise]") {
  CHECK(error_of([] { ElementwiseKernel("T i", "T z", "z = i", "k"); }, ErrorCode::Usage) ==
        "parameter name 'i' is not allowed: 'i' is the element index");
  CHECK(error_of([] { ElementwiseKernel("T x", "T n", "n = x", "k"); }, ErrorCode::Usage) ==
        "parameter name 'n' is not allowed: 'n' is the number of elements");
  CHECK(error_of([] { ElementwiseKernel("float32 n", "float32 z", "z = n", "k"); }, ErrorCode::Usage) ==
        "parameter name 'n' is not allowed: 'n' is the number of elements");
}

TEST_CASE("an empty operation is refused at construction, saying why", "[api][elementwise]") {
  const std::string want =
      "kernel 'noop': the operation is empty; assign each output (e.g. 'y = x'): unlike CuPy, which returns "
      "uninitialized outputs from an empty operation, cujit has no kernel that does nothing";
  CHECK(error_of([] { ElementwiseKernel("T x", "T y", "", "noop"); }, ErrorCode::Usage) == want);
  CHECK(error_of([] { ElementwiseKernel("T x", "T y", " ;\n // nothing\n", "noop"); }, ErrorCode::Usage) == want);
}

TEST_CASE("inputs the program does not read still broadcast (docs/runtime.md)", "[api][elementwise]") {
  std::vector<float> a = {1, 2, 3}, b = {1, 2};
  const ArrayView av = ArrayView::host(a.data(), {3}), bv = ArrayView::host(b.data(), {2});
  const std::string want = "shapes do not broadcast: input 'y' has shape (2,) but the others give (3,)";
  CHECK(error_of([&] { evaluate("out = x * 2", {{"x", av}, {"y", bv}}); }, ErrorCode::Data) == want);
  ElementwiseKernel k("T x, T y", "T z", "z = x * 2", "unused_y");
  CHECK(error_of([&] { k(av, bv); }, ErrorCode::Data) == want);
}

TEST_CASE("an output read as CuPy's are (y += a) gets the two ways to update in place", "[api][elementwise]") {
  const std::string hint =
      "hint: 'v' is an output, and outputs are written, not read (CuPy's start with the given array's values): to "
      "update an array in place, declare 'v' in in_params and assign it in the operation, or read it as an input of "
      "another name and pass the same array as that input and as 'v'";
  std::vector<double> x = {1, 2}, v = {0, 1}, a = {2, 2};
  const ArrayView xv = ArrayView::host(x.data(), {2}), vv = ArrayView::host(v.data(), {2}),
                  av = ArrayView::host(a.data(), {2});
  // With a placeholder the operation is checked at the first call (the types bound), else at construction.
  ElementwiseKernel cupy("T a, T dt", "T x, T v", "v += dt * a; x += dt * v", "k");
  CHECK(error_of([&] { cupy(av, 0.5, xv, vv); }, ErrorCode::Program) ==
        "error: 'v' is read before it is assigned\n  v += dt * a; x += dt * v\n  ^\n" + hint);
  CHECK(error_of([] { ElementwiseKernel("float64 a", "float64 v", "v = v + a", "k"); }, ErrorCode::Program) ==
        "error: 'v' is read before it is assigned\n  v = v + a\n      ^\n" + hint);
  CHECK(v == std::vector<double>{0, 1});
  // Both ways the hint names check, and update the arrays given.
  ElementwiseKernel inout("T x, T v, T a, T dt", "", "v += dt * a; x += dt * v", "inout");
  inout(xv, vv, av, 0.5);
  CHECK(v == std::vector<double>{1, 2});
  CHECK(x == std::vector<double>{1.5, 3});
  ElementwiseKernel given("T x0, T v0, T a, T dt", "T x, T v", "v = v0 + dt * a; x = x0 + dt * v", "given");
  given(xv, vv, av, 0.5, xv, vv);
  CHECK(v == std::vector<double>{2, 3});
  CHECK(x == std::vector<double>{2.5, 4.5});
  // Outside a kernel (evaluate, jitrun) the hint is the usual one.
  CHECK(error_of([] { evaluate("out += 1", {{"x", 1.0}}); }, ErrorCode::Program) ==
        "error: 'out' is read before it is assigned\n  out += 1\n  ^~~\nhint: assign it with '=' before using '+='");
}

TEST_CASE("raw parameters must be C-contiguous on host arrays too (docs/language.md's one statement)",
          "[api][elementwise]") {
  std::vector<double> x = {1, 2, 3}, buf = {10, 0, 20, 0, 30, 0};
  ArrayView every_other = ArrayView::host(buf.data(), {3});
  every_other.strides = Shape{16};
  const std::string want = "raw parameter 'r' must be C-contiguous; pass a contiguous copy";
  ElementwiseKernel k("T x, raw T r", "T y", "y = x + r[i]", "raw_strided");
  CHECK(error_of([&] { k(ArrayView::host(x.data(), {3}), every_other); }, ErrorCode::Usage) == want);
  CHECK(error_of([&] { evaluate("y = x + r[i]", {{"x", ArrayView::host(x.data(), {3})}, {"r", every_other}}); },
                 ErrorCode::Usage) == want);
  // The contiguous copy the message asks for works.
  std::vector<double> copy = {10, 20, 30};
  CHECK(k(ArrayView::host(x.data(), {3}), ArrayView::host(copy.data(), {3}))[0].as<double>()[2] == 33.0);
}

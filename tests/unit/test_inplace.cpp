// In-place updates without a GPU: evaluate() and ElementwiseKernel update the
// caller's host arrays (contiguous and strided, one chunk and many), and what
// cannot be updated safely is refused with an exact message before anything
// is written. The NumPy reference cases (inplace.* in tests/data/eval_cases.txt)
// check the values of every dtype and operator.
#include <cstdint>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "plan/shapes.hpp"
#include "cujit/elementwise.hpp"
#include "cujit/error.hpp"
#include "cujit/evaluate.hpp"
#include "cpu/eval.hpp"
#include "plan/layout.hpp"
#include "lang/check.hpp"
#include "unit/error_of.hpp"

using namespace cujit;

namespace {

using test::error_of;

std::vector<double> random_doubles(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(-10.0, 10.0);
  std::vector<double> v(n);
  for (double& x : v) x = d(rng);
  return v;
}

// NumPy's x *= 5; x *= x; x += x, one in-place ufunc after the other.
double seed_example(double x) {
  volatile double t = x * 5;  // volatile: no FMA contraction, whatever the compiler's flags
  t = t * t;
  return t + t;
}

}  // namespace

TEST_CASE("in place: the seed example updates a contiguous host array, across many chunks and threads", "[inplace]") {
  const std::size_t n = 1'000'003;  // many chunks, and a tail
  std::vector<double> x = random_doubles(n, 1), want(n);
  for (std::size_t k = 0; k < n; ++k) want[k] = seed_example(x[k]);
  const double* before = x.data();
  NamedArrays outs = evaluate("x *= 5; x *= x; x += x", {{"x", ArrayView::host(x.data(), {n})}});
  CHECK(outs.empty());
  REQUIRE(outs.updated == std::vector<std::string>{"x"});
  CHECK(x.data() == before);
  std::size_t wrong = 0;
  for (std::size_t k = 0; k < n; ++k) wrong += x[k] != want[k];
  CHECK(wrong == 0);
  CHECK(error_of([&] { (void)outs["x"]; }, ErrorCode::Usage) ==
        "'x' is an input updated in place: its result is in the array passed for it, not among the outputs");
}

TEST_CASE("in place: a strided host view is updated element by element, the gaps untouched", "[inplace]") {
  const std::int64_t rows = 300, cols = 700;  // a (300, 700) view of every other column of (300, 1400)
  std::vector<double> buf = random_doubles(static_cast<std::size_t>(rows * cols * 2), 2), orig = buf;
  ArrayView x = ArrayView::host(buf.data(), {rows, cols});
  x.strides = Shape{cols * 2 * 8, 16};
  std::vector<double> y = random_doubles(static_cast<std::size_t>(cols), 3);
  NamedArrays outs = evaluate("t = x + y; x -= y; out = t * x",
                              {{"x", x}, {"y", ArrayView::host(y.data(), {cols})}});
  REQUIRE(outs.size() == 1);
  const double* out = outs["out"].as<double>();
  std::size_t wrong = 0;
  for (std::int64_t r = 0; r < rows; ++r)
    for (std::int64_t c = 0; c < 2 * cols; ++c) {
      const std::size_t k = static_cast<std::size_t>(r * 2 * cols + c);
      if (c % 2) {
        wrong += buf[k] != orig[k];  // a gap
        continue;
      }
      const double x0 = orig[k], y0 = y[static_cast<std::size_t>(c / 2)], x1 = x0 - y0;
      wrong += buf[k] != x1;
      wrong += out[r * cols + c / 2] != (x0 + y0) * x1;
    }
  CHECK(wrong == 0);
}

TEST_CASE("in place: int32 updates follow NumPy, and same_kind refuses a float result", "[inplace]") {
  std::vector<std::int32_t> x = {1, -2, 3, 2147483647};
  evaluate("x += 1; x <<= 1; x %= 7", {{"x", ArrayView::host(x.data(), {4})}});
  // NumPy: ((x + 1) << 1) % 7 with int32 wraparound; 2147483647 + 1 wraps to -2147483648, << 1 to 0.
  CHECK(x == std::vector<std::int32_t>{4, 5, 1, 0});
  std::vector<std::int32_t> keep = x;
  CHECK(error_of([&] { evaluate("x *= 2.5", {{"x", ArrayView::host(x.data(), {4})}}); }, ErrorCode::Program) ==
        "error: cannot store the float64 result of '*=' in int32 input 'x', which is updated in place\n"
        "  x *= 2.5\n"
        "  ^~~~~~~~\n"
        "hint: NumPy's same_kind rule for in-place updates forbids it; convert explicitly: 'x = int32(...)'");
  CHECK(x == keep);
  CHECK(error_of([&] { evaluate("x += 1", {{"x", 3}}); }, ErrorCode::Program) ==
        "error: cannot assign to scalar input 'x'\n"
        "  x += 1\n"
        "  ^\n"
        "hint: it is a Python-like number, not an array to update in place; assign to a new name");
}

TEST_CASE("in place: refused before anything is written", "[inplace]") {
  std::vector<float> buf(16);
  for (std::size_t k = 0; k < buf.size(); ++k) buf[k] = static_cast<float>(k);
  const std::vector<float> orig = buf;

  // Another input overlapping it partially (one element further on).
  ArrayView a = ArrayView::host(buf.data(), {8}), b = ArrayView::host(buf.data() + 1, {8});
  CHECK(error_of([&] { evaluate("x += y", {{"x", a}, {"y", b}}); }, ErrorCode::Usage) ==
        "input 'y' shares memory with input 'x', which the program updates in place; pass a copy of 'y'");
  // ... or as the very same view: y would still read the old values, NumPy's the new ones.
  CHECK(error_of([&] { evaluate("x *= 2; out = x + y", {{"x", a}, {"y", a}}); }, ErrorCode::Usage) ==
        "input 'y' shares memory with input 'x', which the program updates in place; pass a copy of 'y'");
  // Two inputs updated in place over one buffer.
  CHECK(error_of([&] { evaluate("x += 1; y += 1", {{"x", a}, {"y", b}}); }, ErrorCode::Usage) ==
        "input 'y' shares memory with input 'x', which the program updates in place; pass a copy of 'y'");
  // A (1, 4) array updated against a (2, 4) shape: NumPy's "non-broadcastable output operand".
  ArrayView row = ArrayView::host(buf.data(), {1, 4}), full = ArrayView::host(buf.data() + 8, {2, 4});
  CHECK(error_of([&] { evaluate("x += y", {{"x", row}, {"y", full}}); }, ErrorCode::Data) ==
        "input 'x' is updated in place, so it must have the result's shape (2, 4), but it has shape (1, 4); an array "
        "that is broadcast cannot hold the result (as in NumPy); give 'x' the full shape");
  // A broadcast view (stride 0) of full shape: its elements are shared.
  ArrayView rep = ArrayView::host(buf.data(), {3, 4});
  rep.strides = Shape{0, 4};
  CHECK(error_of([&] { evaluate("x *= 2", {{"x", rep}}); }, ErrorCode::Data) ==
        "input 'x' is updated in place but is a broadcast view (stride 0 in dimension 0 of extent 3): its elements are "
        "shared; pass a copy");
  // --shape larger than the array updated.
  EvaluateOptions big;
  big.shape = Shape{2, 8};
  CHECK(error_of([&] { evaluate("x *= 2", {{"x", a}}, big); }, ErrorCode::Data).find("must have the result's shape (2, 8)") !=
        std::string::npos);
  CHECK(buf == orig);
}

TEST_CASE("in place: a program that fails at run time leaves the array as it was", "[inplace]") {
  std::vector<float> x = {1, 2, 3, 4}, r = {10, 20, 30, 40};
  const std::vector<float> orig = x;
  // r[i + 1] is out of bounds at the last element, after the others were computed.
  std::string what = error_of(
      [&] { evaluate("x += r[i + 1]", {{"x", ArrayView::host(x.data(), {4})}, {"r", ArrayView::host(r.data(), {4})}}); },
      ErrorCode::Data);
  CHECK(what == "index 4 is out of bounds for raw parameter 'r' of size 4");
  CHECK(x == orig);
}

TEST_CASE("in place: ElementwiseKernel updates an input the operation assigns", "[inplace][elementwise]") {
  std::vector<double> x = random_doubles(1000, 4), want(1000);
  for (std::size_t k = 0; k < x.size(); ++k) want[k] = seed_example(x[k]);
  ElementwiseKernel seed("float64 x", "", "x *= 5; x *= x; x += x", "seed");
  CHECK(seed.num_outputs() == 0);
  CHECK(seed(ArrayView::host(x.data(), {1000})).empty());
  CHECK(x == want);

  // With outputs besides: z reads the updated x.
  std::vector<float> a = {1, 2, 3}, b = {10, 20, 30};
  ElementwiseKernel k("T x, T y", "T z", "x += y; z = x * 2", "upd");
  auto outs = k(ArrayView::host(a.data(), {3}), ArrayView::host(b.data(), {3}));
  CHECK(a == std::vector<float>{11, 22, 33});
  REQUIRE(outs.size() == 1);
  CHECK(outs["z"].as<float>()[2] == 66.0f);
  // Outputs given: the in/out input is still among the inputs alone.
  std::vector<float> z(3);
  CHECK(k(ArrayView::host(a.data(), {3}), ArrayView::host(b.data(), {3}), ArrayView::host(z.data(), {3})).empty());
  CHECK(a == std::vector<float>{21, 42, 63});
  CHECK(z == std::vector<float>{42, 84, 126});

  // CuPy's way: one array passed as an input and as an output (exactly in place).
  std::vector<float> c = {1, 2, 3};
  ElementwiseKernel twice("float32 x", "float32 y", "y = x * 2", "twice");
  twice(ArrayView::host(c.data(), {3}), ArrayView::host(c.data(), {3}));
  CHECK(c == std::vector<float>{2, 4, 6});

  CHECK(error_of([] { ElementwiseKernel("float32 x", "float32 x", "x = x * 2", "dup"); }, ErrorCode::Usage) ==
        "kernel 'dup': parameter 'x' is declared twice; to update an array in place, declare it once in in_params and "
        "assign it in the operation ('x *= 2'), or pass the same array as an input and an output");
  CHECK(error_of([] { ElementwiseKernel("float32 x", "", "t = x * 2", "none"); }, ErrorCode::Usage) ==
        "kernel 'none': out_params declares no output, and the operation updates no input in place");
  CHECK(error_of([&] { seed(2.0); }, ErrorCode::Usage) ==
        "kernel 'seed': input 'x' is updated in place by the operation, so it must be an array, not a scalar");
  // Sharing memory with another input, as for evaluate().
  std::vector<float> d(8);
  CHECK(error_of([&] { k(ArrayView::host(d.data(), {4}), ArrayView::host(d.data() + 2, {4})); }, ErrorCode::Usage) ==
        "input 'y' shares memory with input 'x', which the program updates in place; pass a copy of 'y'");
}

TEST_CASE("in place: the launcher's and the CPU evaluator's own checks", "[inplace]") {
  Program p = compile_program("x *= 2; out = x + y", {{"x", DType::Float32}, {"y", DType::Float32}});
  REQUIRE(p.outputs.size() == 2);
  std::vector<float> buf(32), other(8);
  ArrayView x = ArrayView::host(buf.data(), {8}), y = ArrayView::host(other.data(), {8});
  ArrayView out = ArrayView::host(buf.data() + 16, {8});
  // The in/out output must be the input's own view (or a new array).
  ArrayView shifted = ArrayView::host(buf.data() + 1, {8});
  ArrayView ins[] = {x, y};
  ArrayView wrong_view[] = {shifted, out};
  // A different view of the same memory is an ordinary output overlapping input 'x'.
  CHECK(error_of([&] { check_overlap(p, ins, wrong_view); }, ErrorCode::Usage) ==
        "output 'x' overlaps input 'x' other than element for element (only exactly in place, the same view, is "
        "allowed); write to a new array");
  ArrayView same_data = x;
  same_data.strides = Shape{8};  // the same first element, other strides
  same_data.shape = Shape{4};
  ArrayView bad_own[] = {same_data, out};
  CHECK(error_of([&] { check_overlap(p, ins, bad_own); }, ErrorCode::Usage) ==
        "output 'x' is the input updated in place: it must be the input's own array");
  // An output overlapping the updated input.
  ArrayView over[] = {x, ArrayView::host(buf.data() + 4, {8})};
  CHECK(error_of([&] { check_overlap(p, ins, over); }, ErrorCode::Usage) ==
        "outputs 'x' and 'out' overlap in memory; give each its own array");
  // Any output that is a broadcast view.
  ArrayView rep = out;
  rep.strides = Shape{0};
  ArrayView bcast[] = {x, rep};
  CHECK(error_of([&] { check_overlap(p, ins, bcast); }, ErrorCode::Usage) ==
        "output 'out' is a broadcast view (stride 0 in dimension 0 of extent 8): its elements are shared; write to a "
        "new array");
  ArrayView fine[] = {x, out};
  check_overlap(p, ins, fine);

  // The CPU evaluator updates host memory only.
  ArrayView on_gpu = ArrayView::cuda(reinterpret_cast<float*>(std::uintptr_t{1} << 20), {8});
  CHECK(error_of([&] { evaluate_program(p, {Input{"x", on_gpu}, Input{"y", y}}); }, ErrorCode::Usage) ==
        "input 'x' is updated in place but is in GPU memory; the CPU evaluator needs host arrays");
  CHECK(buf == std::vector<float>(32));
}

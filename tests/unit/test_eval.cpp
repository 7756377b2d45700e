// The CPU evaluator on hand-checked programs: broadcasting, locals, i and n,
// raw indexing, weak scalars. (tests/unit/test_reference.cpp holds it to NumPy
// on every operator and function.)
#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <vector>

#include "catch.hpp"
#include "cujit/error.hpp"
#include "lang/check.hpp"
#include "cpu/eval.hpp"

using namespace cujit;

namespace {
template <class T> HostArray make(DType t, Shape shape, std::vector<T> v) {
  HostArray a(t, shape);
  std::memcpy(a.data(), v.data(), v.size() * sizeof(T));
  return a;
}
Input in(const char* name, const HostArray& a, bool weak = false, bool raw = false) {
  return Input{name, a.view(), weak, raw};
}
template <class T> std::vector<T> values(const HostArray& a) {
  return std::vector<T>(a.as<T>(), a.as<T>() + a.size());
}
// The first element where a differs from want (-1: none); for arrays too long
// for Catch2 to print.
template <class T> std::int64_t first_diff(const HostArray& a, const std::vector<T>& want) {
  if (a.size() != static_cast<std::int64_t>(want.size())) return -2;
  for (std::size_t k = 0; k < want.size(); ++k)
    if (!(a.as<T>()[k] == want[k])) return static_cast<std::int64_t>(k);
  return -1;
}
}  // namespace

TEST_CASE("evaluator broadcasts (3,1) with (4,) to (3,4)") {
  auto x = make<float>(DType::Float32, {3, 1}, {1, 2, 3});
  auto y = make<float>(DType::Float32, {4}, {10, 20, 30, 40});
  auto out = evaluate_cpu("out = x * y + 1", {in("x", x), in("y", y)});
  REQUIRE(out.size() == 1);
  CHECK(out[0].array.shape() == Shape{3, 4});
  CHECK(values<float>(out[0].array) == std::vector<float>{11, 21, 31, 41, 21, 41, 61, 81, 31, 61, 91, 121});
}

TEST_CASE("evaluator: locals, i, n, int8 wrapping, NumPy remainder") {
  auto x = make<std::int8_t>(DType::Int8, {4}, {127, -7, 7, -128});
  auto out = evaluate_cpu("t = x + 1; r = x % 3; k = i * 10 + n", {in("x", x)});
  REQUIRE(out.size() == 3);
  CHECK(values<std::int8_t>(out[0].array) == std::vector<std::int8_t>{-128, -6, 8, -127});
  CHECK(values<std::int8_t>(out[1].array) == std::vector<std::int8_t>{1, 2, 1, 1});
  CHECK(values<std::int64_t>(out[2].array) == std::vector<std::int64_t>{4, 14, 24, 34});
}

TEST_CASE("evaluator: raw indexing, strided views and out-of-bounds") {
  auto x = make<double>(DType::Float64, {6}, {0, 1, 2, 3, 4, 5});
  auto y = make<double>(DType::Float64, {3}, {0, 0, 0});
  auto out = evaluate_cpu("out = x[size(x) - 1 - i] + y", {in("x", x, false, true), in("y", y)});
  CHECK(values<double>(out[0].array) == std::vector<double>{5, 4, 3});
  HostArray strided = x;
  strided.view().shape = Shape{3};
  strided.view().strides = Shape{16};
  auto o2 = evaluate_cpu("out = x * 2", {in("x", strided)});
  CHECK(values<double>(o2[0].array) == std::vector<double>{0, 4, 8});
  try {
    evaluate_cpu("out = x[i + 4] + y", {in("x", x, false, true), in("y", y)});
    FAIL("expected an error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Data);
    CHECK(std::string(e.what()) == "index 6 is out of bounds for raw parameter 'x' of size 6");
  }
}

TEST_CASE("evaluator: weak scalar parameters behave as literals") {
  auto x = make<std::int8_t>(DType::Int8, {2}, {1, 2});
  auto a = make<std::int64_t>(DType::Int64, {}, {3});
  auto out = evaluate_cpu("out = x * a", {in("x", x), in("a", a, true)});
  CHECK(out[0].array.dtype() == DType::Int8);
  CHECK(values<std::int8_t>(out[0].array) == std::vector<std::int8_t>{3, 6});
  auto big = make<std::int64_t>(DType::Int64, {}, {300});
  CHECK_THROWS_AS(evaluate_cpu("out = x * a", {in("x", x), in("a", big, true)}), Error);
}

TEST_CASE("evaluator: float16 rounds per operation, int64 vs uint64 compares exactly") {
  auto h = make<std::uint16_t>(DType::Float16, {1}, {0x3c00});  // 1.0
  auto out = evaluate_cpu("out = x / 3 * 3", {in("x", h)});
  CHECK(out[0].array.dtype() == DType::Float16);
  CHECK(values<std::uint16_t>(out[0].array)[0] == 0x3c00);  // 0.3333 (f16) * 3 = 0.99951 -> 1.0 after rounding
  auto s = make<std::int64_t>(DType::Int64, {2}, {-1, 5});
  auto u = make<std::uint64_t>(DType::UInt64, {2}, {~0ull, 5});
  auto c = evaluate_cpu("lt = s < u; eq = s == u", {in("s", s), in("u", u)});
  CHECK(values<bool>(c[0].array) == std::vector<bool>{true, false});
  CHECK(values<bool>(c[1].array) == std::vector<bool>{false, true});
}

TEST_CASE("evaluator: imaginary literals and uint64 literals above INT64_MAX") {
  auto z = make<float>(DType::Complex64, {1}, {2.0f, 3.0f});
  auto o = evaluate_cpu("o = z * 1j", {in("z", z)});
  CHECK(o[0].array.as<float>()[0] == -3.0f);
  CHECK(o[0].array.as<float>()[1] == 2.0f);
  auto u = make<std::uint64_t>(DType::UInt64, {2}, {5, ~0ull});
  auto c = evaluate_cpu("lt = u < 18446744073709551615; eq = u == 18446744073709551615", {in("u", u)});
  CHECK(values<bool>(c[0].array) == std::vector<bool>{true, false});
  CHECK(values<bool>(c[1].array) == std::vector<bool>{false, true});
}

TEST_CASE("evaluator: inputs broadcast to a given output shape, as NumPy's out= (scalars fill it)") {
  auto a = make<std::int64_t>(DType::Int64, {}, {7});
  Program p = compile_program("out = a * 2 + i", {Param{"a", DType::Int64}});
  Shape s{2, 3};
  auto o = evaluate_program(p, {in("a", a)}, &s);
  CHECK(o[0].array.shape() == Shape{2, 3});
  CHECK(values<std::int64_t>(o[0].array) == std::vector<std::int64_t>{14, 15, 16, 17, 18, 19});
  auto x = make<float>(DType::Float32, {3}, {1, 2, 3});
  Shape bad{2, 4};
  CHECK_THROWS_AS(evaluate_program(compile_program("out = x", {Param{"x", DType::Float32}}), {in("x", x)}, &bad), Error);
}

TEST_CASE("evaluator: where's condition is any nonzero byte, in every element width (the vector loop)") {
  // A bool array's bytes as NumPy may hold them (a uint8 array viewed as bool):
  // NumPy's where takes any nonzero byte as true.
  const std::size_t n = 1000;
  std::vector<std::uint8_t> bytes(n);
  for (std::size_t k = 0; k < n; ++k) bytes[k] = static_cast<std::uint8_t>(k % 3 == 0 ? 0 : k % 3 == 1 ? 1 : 2 + k % 250);
  const Shape s{static_cast<std::int64_t>(n)};
  auto c = make<std::uint8_t>(DType::Bool, s, bytes);
  std::vector<double> xv(n), yv(n);
  for (std::size_t k = 0; k < n; ++k) xv[k] = static_cast<double>(k), yv[k] = -static_cast<double>(k) - 1;
  auto x64 = make<double>(DType::Float64, s, xv), y64 = make<double>(DType::Float64, s, yv);
  std::vector<float> xf(xv.begin(), xv.end()), yf(yv.begin(), yv.end());
  auto x32 = make<float>(DType::Float32, s, xf), y32 = make<float>(DType::Float32, s, yf);
  std::vector<std::int16_t> xs(n), ys(n);
  std::vector<std::int8_t> xb(n), yb(n);
  for (std::size_t k = 0; k < n; ++k) {
    xs[k] = static_cast<std::int16_t>(k), ys[k] = static_cast<std::int16_t>(-1 - static_cast<int>(k));
    xb[k] = static_cast<std::int8_t>(k % 100), yb[k] = static_cast<std::int8_t>(-1 - static_cast<int>(k % 100));
  }
  auto x16 = make<std::int16_t>(DType::Int16, s, xs), y16 = make<std::int16_t>(DType::Int16, s, ys);
  auto x8 = make<std::int8_t>(DType::Int8, s, xb), y8 = make<std::int8_t>(DType::Int8, s, yb);
  auto o64 = evaluate_cpu("out = where(c, x, y)", {in("c", c), in("x", x64), in("y", y64)});
  auto o32 = evaluate_cpu("out = where(c, x, y)", {in("c", c), in("x", x32), in("y", y32)});
  auto o16 = evaluate_cpu("out = where(c, x, y)", {in("c", c), in("x", x16), in("y", y16)});
  auto o8 = evaluate_cpu("out = where(c, x, y)", {in("c", c), in("x", x8), in("y", y8)});
  const auto r64 = values<double>(o64[0].array);
  const auto r32 = values<float>(o32[0].array);
  const auto r16 = values<std::int16_t>(o16[0].array);
  const auto r8 = values<std::int8_t>(o8[0].array);
  for (std::size_t k = 0; k < n; ++k) {
    INFO("element " << k << ", condition byte " << int(bytes[k]));
    const bool t = bytes[k] != 0;
    CHECK(r64[k] == (t ? xv[k] : yv[k]));
    CHECK(r32[k] == (t ? xf[k] : yf[k]));
    CHECK(r16[k] == (t ? xs[k] : ys[k]));
    CHECK(r8[k] == (t ? xb[k] : yb[k]));
  }
}

TEST_CASE("evaluator: a bool input's nonzero bytes are True, in arithmetic, compares, casts and reductions") {
  // A uint8 array viewed as bool, as NumPy may hand one over: every nonzero
  // byte reads as True (np.frombuffer(b"\x02", bool) + 0 == 1). The loops took
  // the byte itself: sum(c) added the bytes, c == t was False for a 2.
  const std::size_t n = 3000;  // more than a chunk, so that chunks after the first are normalized too
  std::vector<std::uint8_t> bytes(n), ones(n, 1);
  std::int64_t trues = 0;
  for (std::size_t k = 0; k < n; ++k) {
    bytes[k] = static_cast<std::uint8_t>(k % 4 == 0 ? 0 : k % 4 == 1 ? 1 : 2 + k % 254);
    trues += bytes[k] != 0;
  }
  const Shape s{static_cast<std::int64_t>(n)};
  const auto c = make<std::uint8_t>(DType::Bool, s, bytes), t = make<std::uint8_t>(DType::Bool, s, ones);
  const auto plus = evaluate_cpu("out = c + 0", {in("c", c)});
  const auto eq = evaluate_cpu("out = c == t", {in("c", c), in("t", t)});
  const auto inv = evaluate_cpu("out = ~c", {in("c", c)});
  const auto as32 = evaluate_cpu("out = int32(c)", {in("c", c)});
  const auto scaled = evaluate_cpu("out = c * 1.5", {in("c", c)});
  const auto idx = evaluate_cpu("out = c[i] & t", {in("c", c, false, true), in("t", t)});
  for (std::size_t k = 0; k < n; ++k) {
    INFO("element " << k << ", byte " << int(bytes[k]));
    const bool b = bytes[k] != 0;
    CHECK(plus[0].array.as<std::int64_t>()[k] == (b ? 1 : 0));
    CHECK(eq[0].array.as<std::uint8_t>()[k] == (b ? 1 : 0));
    CHECK(inv[0].array.as<std::uint8_t>()[k] == (b ? 0 : 1));
    CHECK(as32[0].array.as<std::int32_t>()[k] == (b ? 1 : 0));
    CHECK(scaled[0].array.as<double>()[k] == (b ? 1.5 : 0.0));
    CHECK(idx[0].array.as<std::uint8_t>()[k] == (b ? 1 : 0));
  }
  // Reduced where it is, and broadcast from one element (a constant).
  CHECK(evaluate_cpu("s = sum(c)", {in("c", c)})[0].array.as<std::int64_t>()[0] == trues);
  CHECK(evaluate_cpu("s = mean(c)", {in("c", c)})[0].array.as<double>()[0] == static_cast<double>(trues) / n);
  const auto two = make<std::uint8_t>(DType::Bool, Shape{1}, {2});
  const auto bc = evaluate_cpu("out = c + t", {in("c", two), in("t", t)});
  for (std::size_t k = 0; k < n; ++k) CHECK(bc[0].array.as<std::uint8_t>()[k] == 1);  // True + True: True
  // A strided view (gathered per chunk): every other byte.
  HostArray wide = make<std::uint8_t>(DType::Bool, s, bytes);
  ArrayView every2 = wide.view();
  every2.shape = Shape{static_cast<std::int64_t>(n / 2)};
  every2.strides = Shape{2};
  const auto g = evaluate_cpu("out = c * 3", {Input{"c", every2, false, false}});
  for (std::size_t k = 0; k < n / 2; ++k) CHECK(g[0].array.as<std::int64_t>()[k] == (bytes[2 * k] != 0 ? 3 : 0));
}

// A contiguous row broadcast over outer dims is read in place or from a tile
// a thread keeps (cpu/eval.cpp, Reg::Periodic): rows shorter than a chunk,
// rows a chunk divides, rows of a prime length whose chunks straddle rows,
// a row of rows (a 2-D input under a 3-D output), bool bytes, a strided
// output shape with the row broadcast in a middle dim (gathered), and the
// fused reduction, which runs blocks from any element (BlockEvaluator).
TEST_CASE("evaluator: a row broadcast over rows, every row length against a chunk") {
  std::uint64_t seed = 12345;
  auto next = [&] { return (seed = seed * 6364136223846793005ULL + 1442695040888963407ULL) >> 40; };
  // (2049 x 2048: chunk 2047 of 2048 int32 ends one element past a row.)
  const std::int64_t shapes[][2] = {{1, 40000}, {3, 13333}, {1000, 40}, {2048, 19}, {4096, 9},
                                    {4099, 9},  {6000, 6},  {10007, 3}, {2049, 2048}};
  for (const auto& sh : shapes) {
    const std::int64_t cols = sh[0], rows = sh[1];
    std::vector<std::int32_t> mv(static_cast<std::size_t>(rows * cols)), rv(static_cast<std::size_t>(cols));
    for (auto& v : mv) v = static_cast<std::int32_t>(next() % 2001) - 1000;
    for (auto& v : rv) v = static_cast<std::int32_t>(next() % 201) - 100;
    auto m = make<std::int32_t>(DType::Int32, {rows, cols}, mv);
    auto r = make<std::int32_t>(DType::Int32, {cols}, rv);
    auto out = evaluate_cpu("out = m*r + 1; s = sum(m*r - i)", {in("m", m), in("r", r)});
    REQUIRE(out.size() == 2);
    std::vector<std::int32_t> want(mv.size());
    std::int64_t sum = 0;
    for (std::size_t k = 0; k < mv.size(); ++k) {
      const std::int32_t p = mv[k] * rv[k % static_cast<std::size_t>(cols)];
      want[k] = p + 1;
      sum += p - static_cast<std::int64_t>(k);
    }
    INFO("rows " << rows << ", cols " << cols);
    CHECK(first_diff(out[0].array, want) == -1);
    CHECK(values<std::int64_t>(out[1].array) == std::vector<std::int64_t>{sum});
  }
  // (2, 3, 2048) with a (3, 2048) input: one row of 6144 elements; with a
  // (3, 1, 2048)-shaped output the (2048,) row sits under a broadcast middle dim.
  std::vector<double> av(2 * 3 * 2048), bv(3 * 2048);
  for (auto& v : av) v = static_cast<double>(next() % 1000) / 8;
  for (auto& v : bv) v = static_cast<double>(next() % 1000) / 16;
  auto a = make<double>(DType::Float64, {2, 3, 2048}, av);
  auto b = make<double>(DType::Float64, {3, 2048}, bv);
  auto o = evaluate_cpu("out = a - b", {in("a", a), in("b", b)});
  std::vector<double> want(av.size());
  for (std::size_t k = 0; k < av.size(); ++k) want[k] = av[k] - bv[k % bv.size()];
  CHECK(first_diff(o[0].array, want) == -1);
  auto c = make<double>(DType::Float64, {3, 1, 2048}, std::vector<double>(bv.begin(), bv.end()));
  auto row = make<double>(DType::Float64, {5, 2048}, std::vector<double>(av.begin(), av.begin() + 5 * 2048));
  auto o3 = evaluate_cpu("out = c + row", {in("c", c), in("row", row)});
  REQUIRE(o3[0].array.shape() == Shape{3, 5, 2048});
  std::vector<double> want3(3 * 5 * 2048);
  for (std::size_t k = 0; k < want3.size(); ++k) want3[k] = bv[k / (5 * 2048) * 2048 + k % 2048] + av[k % (5 * 2048)];
  CHECK(first_diff(o3[0].array, want3) == -1);
  // A bool row of bytes 0, 1 and 2-255: NumPy's True for every nonzero byte.
  std::vector<std::uint8_t> tv(4099);
  for (auto& v : tv) v = static_cast<std::uint8_t>(next() % 4 == 0 ? 0 : next() % 255 + 1);
  auto t = make<std::uint8_t>(DType::Bool, {4099}, tv);
  auto z = make<std::int16_t>(DType::Int16, {7, 4099}, std::vector<std::int16_t>(7 * 4099, 3));
  auto ob = evaluate_cpu("out = z + t", {in("z", z), in("t", t)});
  std::vector<std::int16_t> wantb(7 * 4099);
  for (std::size_t k = 0; k < wantb.size(); ++k) wantb[k] = static_cast<std::int16_t>(3 + (tv[k % 4099] != 0));
  CHECK(first_diff(ob[0].array, wantb) == -1);
}

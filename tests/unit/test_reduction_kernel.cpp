// ReductionKernel on host arrays (the CPU evaluator): CuPy's parameters
// translated to the language's reductions, checked against plain loops over
// fresh random data, with the axes, keepdims, placeholders, given outputs and
// the errors of each parameter.
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "catch.hpp"
#include "cujit/error.hpp"
#include "cujit/reduction.hpp"
#include "unit/error_of.hpp"

using namespace cujit;

namespace {

using test::error_of;

template <class T>
std::vector<T> random_values(std::size_t n, std::uint64_t seed, double lo, double hi) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> d(lo, hi);
  std::vector<T> v(n);
  for (T& x : v) x = static_cast<T>(d(rng));
  return v;
}

// The reference: x of shape `dims` (C order) reduced over the axes marked in
// `reduced` with `op`, in double; the result in C order over the kept axes.
template <class T, class Op>
std::vector<double> reduce_ref(const std::vector<T>& x, const std::vector<std::size_t>& dims,
                               const std::vector<bool>& reduced, double init, Op op) {
  std::size_t out_n = 1;
  for (std::size_t d = 0; d < dims.size(); ++d)
    if (!reduced[d]) out_n *= dims[d];
  std::vector<double> out(out_n, init);
  std::vector<std::size_t> idx(dims.size(), 0);
  for (std::size_t flat = 0; flat < x.size(); ++flat) {
    std::size_t o = 0;
    for (std::size_t d = 0; d < dims.size(); ++d)
      if (!reduced[d]) o = o * dims[d] + idx[d];
    out[o] = op(out[o], static_cast<double>(x[flat]));
    for (std::size_t d = dims.size(); d-- > 0;) {
      if (++idx[d] < dims[d]) break;
      idx[d] = 0;
    }
  }
  return out;
}

double add(double a, double b) { return a + b; }
double maxd(double a, double b) { return a > b ? a : b; }

}  // namespace

TEST_CASE("ReductionKernel: CuPy's L2 norm over every axis and over rows, float32 and float64", "[api][reduction_kernel]") {
  ReductionKernel l2norm("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm");
  CHECK(l2norm.name() == "l2norm");
  const std::size_t rows = 37, cols = 211;
  auto xf = random_values<float>(rows * cols, 1, -3, 3);
  std::vector<float> sq(xf.size());
  for (std::size_t k = 0; k < xf.size(); ++k) sq[k] = xf[k] * xf[k];

  OutputArrays all = l2norm(ArrayView::host(xf.data(), {rows * cols}));
  REQUIRE(all.size() == 1);
  CHECK(all["y"].shape() == Shape{});
  CHECK(all["y"].dtype() == DType::Float32);
  double exact = std::sqrt(reduce_ref(sq, {rows * cols}, {true}, 0, add)[0]);
  CHECK(*all[0].as<float>() == Approx(exact).epsilon(1e-6));

  OutputArrays per_row = l2norm.call({ArrayView::host(xf.data(), {rows, cols})}, {1});
  REQUIRE(per_row[0].shape() == Shape{rows});
  std::vector<double> want = reduce_ref(sq, {rows, cols}, {false, true}, 0, add);
  for (std::size_t r = 0; r < rows; ++r) {
    INFO(r);
    CHECK(per_row[0].as<float>()[r] == Approx(std::sqrt(want[r])).epsilon(1e-6));
  }

  auto xd = random_values<double>(rows * cols, 2, -3, 3);
  OutputArrays cols_d = l2norm.call({ArrayView::host(xd.data(), {rows, cols})}, {0, true});
  REQUIRE(cols_d[0].shape() == Shape{1, cols});
  CHECK(cols_d[0].dtype() == DType::Float64);
  std::vector<double> sqd(xd.size());
  for (std::size_t k = 0; k < xd.size(); ++k) sqd[k] = xd[k] * xd[k];
  std::vector<double> wantd = reduce_ref(sqd, {rows, cols}, {true, false}, 0, add);
  for (std::size_t c = 0; c < cols; ++c) CHECK(cols_d[0].as<double>()[c] == Approx(std::sqrt(wantd[c])).epsilon(1e-13));
}

TEST_CASE("ReductionKernel: integer sums of squares wrap in reduce_type, products, the identity", "[api][reduction_kernel]") {
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<std::int32_t> d(-40000, 40000);
  std::vector<std::int32_t> x(4096);
  for (auto& v : x) v = d(rng);
  // Each square fits int32, the sum does not: int32 reduce_type wraps, int64 does not.
  ReductionKernel ss32("T x", "T y", "x * x", "b + a", "y = a", "0", "ss32");
  ReductionKernel ss64("T x", "int64 y", "x * x", "a+b", "y = a", "0", "ss64", "int64");
  std::int64_t exact = 0;
  for (std::int32_t v : x) exact += static_cast<std::int64_t>(v) * v;
  auto r32 = ss32(ArrayView::host(x.data(), {x.size()}));
  auto r64 = ss64(ArrayView::host(x.data(), {x.size()}));
  CHECK(r32[0].dtype() == DType::Int32);
  CHECK(*r32[0].as<std::int32_t>() == static_cast<std::int32_t>(static_cast<std::uint32_t>(exact)));
  CHECK(r64[0].dtype() == DType::Int64);
  CHECK(*r64[0].as<std::int64_t>() == exact);

  // A product over axis 0 of values near 1, float64; the identity as CuPy spells it.
  ReductionKernel prod("float64 x", "float64 y", "x", "a * b", "y = a", "1.0", "prod");
  for (const char* one : {"1", "1.", "1.0f", "T(1)", "double(1.0)", "true", " 1 "})
    CHECK_NOTHROW(ReductionKernel("T x", "T y", "x", "a * b", "y = a", one, "p1"));
  for (const char* zero : {"0", "-0", "0.0", "T(0)", "false", "0u"})
    CHECK_NOTHROW(ReductionKernel("T x", "T y", "x", "a + b", "y = a", zero, "s0"));
  auto p = random_values<double>(64 * 9, 4, 0.9, 1.1);
  auto r = prod.call({ArrayView::host(p.data(), {64, 9})}, {0});
  REQUIRE(r[0].shape() == Shape{9});
  std::vector<double> want = reduce_ref(p, {64, 9}, {true, false}, 1, [](double a, double b) { return a * b; });
  for (std::size_t c = 0; c < 9; ++c) CHECK(r[0].as<double>()[c] == Approx(want[c]).epsilon(1e-13));

  // Empty inputs give the identity (NumPy's np.sum of nothing).
  std::vector<float> none;
  ReductionKernel sum("T x", "T y", "x", "a + b", "y = a", "0", "sum");
  auto e = sum(ArrayView::host(none.data(), {0}));
  CHECK(*e[0].as<float>() == 0.0f);
}

TEST_CASE("ReductionKernel: max and min over axes 0, 1, -1, (0, 2), with keepdims", "[api][reduction_kernel]") {
  const std::vector<std::size_t> dims = {4, 5, 6};
  auto x = random_values<float>(4 * 5 * 6, 5, -100, 100);
  ArrayView xv = ArrayView::host(x.data(), {4, 5, 6});
  ReductionKernel kmax("T x", "T y", "x", "max(a, b)", "y = a", "", "kmax");
  ReductionKernel kmax2("T x", "T y", "x", " maximum( b , a ) ", "y = a", "-inf", "kmax2");
  const double lowest = -std::numeric_limits<double>::infinity();
  struct Case {
    Axes axis;
    std::vector<bool> reduced;
    Shape shape, keep;
  };
  const std::vector<Case> cases = {
      {Axes(0), {true, false, false}, Shape{5, 6}, Shape{1, 5, 6}},
      {Axes(1), {false, true, false}, Shape{4, 6}, Shape{4, 1, 6}},
      {Axes(-1), {false, false, true}, Shape{4, 5}, Shape{4, 5, 1}},
      {Axes{0, 2}, {true, false, true}, Shape{5}, Shape{1, 5, 1}},
      {Axes(), {true, true, true}, Shape{}, Shape{1, 1, 1}},
  };
  for (const Case& c : cases)
    for (bool keepdims : {false, true})
      for (const ReductionKernel* k : {&kmax, &kmax2}) {
        INFO(to_string(c.shape) << " keepdims " << keepdims << " " << k->name());
        auto r = k->call({xv}, {c.axis, keepdims});
        CHECK(r[0].shape() == (keepdims ? c.keep : c.shape));
        std::vector<double> want = reduce_ref(x, dims, c.reduced, lowest, maxd);
        for (std::size_t j = 0; j < want.size(); ++j) CHECK(r[0].as<float>()[j] == static_cast<float>(want[j]));
      }
  // No axes (NumPy's axis=()): nothing reduced, the map and post_map elementwise.
  auto none_reduced = kmax.call({xv}, ReduceOptions(Axes(std::vector<int>{})));
  REQUIRE(none_reduced[0].shape() == Shape{4, 5, 6});
  for (std::size_t j = 0; j < x.size(); ++j) CHECK(none_reduced[0].as<float>()[j] == x[j]);
  ReductionKernel kmin("T x", "T y", "-x", "min(b, a)", "y = -a", "", "kmin");
  auto r = kmin.call({xv}, {Axes{1}});
  std::vector<double> want = reduce_ref(x, dims, {false, true, false}, lowest, maxd);
  REQUIRE(r[0].shape() == Shape{4, 6});
  for (std::size_t j = 0; j < want.size(); ++j) CHECK(r[0].as<float>()[j] == static_cast<float>(want[j]));

  // NaN: max propagates it, fmax ignores it (NumPy's maximum and fmax reductions).
  std::vector<double> withnan = {1, std::nan(""), 3};
  ReductionKernel kfmax("T x", "T y", "x", "fmax(a, b)", "y = a", "", "kfmax");
  CHECK(std::isnan(*kmax(ArrayView::host(withnan.data(), {3}))[0].as<double>()));
  CHECK(*kfmax(ArrayView::host(withnan.data(), {3}))[0].as<double>() == 3.0);

  // No identity for max: an empty max is NumPy's error, whatever identity was given.
  std::vector<float> none;
  CHECK(error_of([&] { kmax2(ArrayView::host(none.data(), {0})); }, ErrorCode::Data) ==
        "zero-size array to reduction operation maximum which has no identity");
}

TEST_CASE("ReductionKernel: any and all of bool rows; placeholders of float32, float64, int32", "[api][reduction_kernel]") {
  std::mt19937_64 rng(6);
  const std::size_t rows = 50, cols = 7;
  std::vector<std::uint8_t> bits(rows * cols);
  for (auto& b : bits) b = (rng() % 5 == 0) ? 1 : 0;  // rows of all zeros and of some ones
  for (std::size_t c = 0; c < cols; ++c) bits[3 * cols + c] = 1;  // a row of all ones
  ArrayView xv = ArrayView::host(bits.data(), DType::Bool, {rows, cols});
  ReductionKernel kany("bool x", "bool y", "x", "a || b", "y = a", "false", "kany");
  ReductionKernel kall("bool x", "bool y", "x", "a & b", "y = a", "true", "kall");
  auto ra = kany.call({xv}, {1});
  auto rl = kall.call({xv}, {-1});
  REQUIRE(ra[0].shape() == Shape{rows});
  for (std::size_t r = 0; r < rows; ++r) {
    bool any = false, all = true;
    for (std::size_t c = 0; c < cols; ++c) any = any || bits[r * cols + c], all = all && bits[r * cols + c];
    INFO(r);
    CHECK(ra[0].as<bool>()[r] == any);
    CHECK(rl[0].as<bool>()[r] == all);
  }
  // `a | b` with a placeholder reduce_type: bool at the call, so any.
  ReductionKernel kor("T x", "T y", "x", "a | b", "y = a", "0", "kor");
  auto ro = kor.call({xv}, {1});
  for (std::size_t r = 0; r < rows; ++r) CHECK(ro[0].as<bool>()[r] == ra[0].as<bool>()[r]);
  // any of a comparison, as CuPy's `x > 0` map with `a || b`.
  ReductionKernel positive("T x", "bool y", "x > 0", "a || b", "y = a", "0", "positive", "bool");
  auto neg = random_values<double>(100, 7, -5, -1);
  CHECK_FALSE(*positive(ArrayView::host(neg.data(), {100}))[0].as<bool>());
  neg[42] = 1;
  CHECK(*positive(ArrayView::host(neg.data(), {100}))[0].as<bool>());

  // One kernel, three bindings of T; the mean of each row in post_map.
  ReductionKernel rowmean("T x", "float64 y", "x", "a + b", "y = a / 5", "0", "rowmean", "float64");
  auto f = random_values<float>(20, 8, -9, 9);
  auto d = random_values<double>(20, 9, -9, 9);
  std::vector<std::int32_t> i(20);
  for (std::size_t k = 0; k < 20; ++k) i[k] = static_cast<std::int32_t>(d[k] * 1000);
  auto rf = rowmean.call({ArrayView::host(f.data(), {4, 5})}, {1});
  auto rd = rowmean.call({ArrayView::host(d.data(), {4, 5})}, {1});
  auto ri = rowmean.call({ArrayView::host(i.data(), {4, 5})}, {1});
  for (std::size_t r = 0; r < 4; ++r) {
    double sf = 0, sd = 0, si = 0;
    for (std::size_t c = 0; c < 5; ++c) sf += f[r * 5 + c], sd += d[r * 5 + c], si += i[r * 5 + c];
    CHECK(rf[0].as<double>()[r] == Approx(sf / 5).epsilon(1e-13));
    CHECK(rd[0].as<double>()[r] == Approx(sd / 5).epsilon(1e-13));
    CHECK(ri[0].as<double>()[r] == si / 5);
  }
}

TEST_CASE("ReductionKernel: given outputs are written in place; wrong shapes and dtypes are refused", "[api][reduction_kernel]") {
  ReductionKernel l2norm("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm");
  auto x = random_values<float>(6 * 8, 10, -2, 2);
  ArrayView xv = ArrayView::host(x.data(), {6, 8});
  std::vector<float> y(8, std::nanf(""));  // poisoned
  CHECK(l2norm.call({xv, ArrayView::host(y.data(), {8})}, {0}).empty());
  for (std::size_t c = 0; c < 8; ++c) {
    double s = 0;
    for (std::size_t r = 0; r < 6; ++r) s += double(x[r * 8 + c]) * x[r * 8 + c];
    CHECK(y[c] == Approx(std::sqrt(s)).epsilon(1e-6));
  }
  std::vector<float> y0(1, std::nanf(""));
  l2norm.call({xv, ArrayView::host(y0.data(), {})});
  CHECK(y0[0] == Approx(std::sqrt(reduce_ref(std::vector<double>(x.begin(), x.end()), {48}, {true}, 0,
                                                  [](double a, double b) { return a + b * b; })[0]))
                     .epsilon(1e-6));

  std::vector<float> wrong(6);
  CHECK(error_of([&] { l2norm.call({xv, ArrayView::host(wrong.data(), {6})}, {0}); }, ErrorCode::Data) ==
        "output 'y' has shape (6,), but the inputs broadcast to (8,)");
  std::vector<double> wrong_type(8);
  CHECK(error_of([&] { l2norm.call({xv, ArrayView::host(wrong_type.data(), {8})}, {0}); }, ErrorCode::Data) ==
        "kernel 'l2norm': 'y' is float64 but 'x' made T float32; arguments of one placeholder must agree");
  ReductionKernel f32("float32 x", "float32 y", "x", "a + b", "y = a", "0", "f32");
  CHECK(error_of([&] { f32.call({xv, ArrayView::host(wrong_type.data(), {8})}, {0}); }, ErrorCode::Data) ==
        "output 'y' is float64, but the program makes it float32");
  CHECK(error_of([&] { l2norm.call({xv}, {2}); }, ErrorCode::Program) ==
        "error: axis 2 is out of bounds for array of dimension 2 (line 1)\n"
        "  float32 a = sum(x * x, dtype=float32, axis=2)\n"
        "                                             ^\n"
        "hint: the argument of 'sum' has shape (6, 8): its axes are 0..1 (or -2..-1)");
  CHECK(error_of([&] { l2norm.call({xv, xv, xv}); }, ErrorCode::Usage) ==
        "kernel 'l2norm' takes 1 input and 1 output: call it with 2 arguments (outputs given) or 1 (outputs "
        "allocated), not 3");
}

TEST_CASE("ReductionKernel: scalars in map_expr, two outputs, the default post_map, bool sums", "[api][reduction_kernel]") {
  auto x = random_values<double>(3 * 40, 11, -1, 1);
  ArrayView xv = ArrayView::host(x.data(), {3, 40});
  // A weak scalar takes the declared dtype; post_map writes two outputs of two dtypes.
  ReductionKernel k("T x, float64 w", "T rms, float32 total", "x * x * w", "a + b", "rms = sqrt(a / 40); total = a",
                    "0", "rms");
  auto r = k.call({xv, 2.5}, {1});
  REQUIRE(r.size() == 2);
  CHECK(r["rms"].dtype() == DType::Float64);
  CHECK(r["total"].dtype() == DType::Float32);
  for (std::size_t row = 0; row < 3; ++row) {
    double s = 0;
    for (std::size_t c = 0; c < 40; ++c) s += x[row * 40 + c] * x[row * 40 + c] * 2.5;
    CHECK(r["rms"].as<double>()[row] == Approx(std::sqrt(s / 40)).epsilon(1e-13));
    CHECK(r["total"].as<float>()[row] == Approx(s).epsilon(1e-6));
  }
  // An empty post_map_expr assigns the one output: CuPy's `y = a`.
  ReductionKernel plain("T x", "T y", "x", "a + b", "", "0", "plain");
  CHECK(*plain(xv)[0].as<double>() == Approx(reduce_ref(x, {120}, {true}, 0, add)[0]).epsilon(1e-12));
  // A sum in bool is a logical or (C++'s bool + bool converted back, as CuPy's).
  std::vector<std::uint8_t> b = {0, 0, 1, 0, 0, 0};
  ReductionKernel bsum("bool x", "bool y", "x", "a + b", "y = a", "0", "bsum");
  auto rb = bsum.call({ArrayView::host(b.data(), DType::Bool, {2, 3})}, {1});
  CHECK(rb[0].as<bool>()[0]);
  CHECK_FALSE(rb[0].as<bool>()[1]);
}

TEST_CASE("ReductionKernel: one kernel called from several threads with different axes", "[api][reduction_kernel]") {
  ReductionKernel ksum("T x", "T y", "x", "a + b", "y = a", "0", "ksum");
  std::vector<std::int64_t> x(6 * 7 * 8);
  for (std::size_t k = 0; k < x.size(); ++k) x[k] = static_cast<std::int64_t>(k % 13) - 6;
  ArrayView xv = ArrayView::host(x.data(), {6, 7, 8});
  const std::vector<Axes> axes = {Axes(0), Axes(1), Axes(-1), Axes{0, 2}, Axes()};
  std::vector<std::vector<double>> want;
  for (const Axes& a : axes) {
    std::vector<bool> reduced(3, !a.list);
    if (a.list)
      for (int d : *a.list) reduced[static_cast<std::size_t>(d < 0 ? d + 3 : d)] = true;
    want.push_back(reduce_ref(x, {6, 7, 8}, reduced, 0, add));
  }
  std::vector<std::thread> threads;
  std::vector<int> bad(8, 0);
  for (int t = 0; t < 8; ++t)
    threads.emplace_back([&, t] {
      for (int rep = 0; rep < 20; ++rep) {
        const std::size_t c = static_cast<std::size_t>(t + rep) % axes.size();
        auto r = ksum.call({xv}, {axes[c], rep % 2 == 1});
        for (std::size_t j = 0; j < want[c].size(); ++j)
          if (r[0].as<std::int64_t>()[j] != static_cast<std::int64_t>(want[c][j])) ++bad[static_cast<std::size_t>(t)];
      }
    });
  for (auto& th : threads) th.join();
  for (int b : bad) CHECK(b == 0);
}

TEST_CASE("ReductionKernel: errors name the parameter and what to write", "[api][reduction_kernel]") {
  // The rendered diagnostic of an unknown reduce_expr.
  auto SUPPORTED = [](const std::string& e) {
    return "error: kernel 'k': reduce_expr is not a reduction cujit knows\n  " + e + "\n  ^~~~~\n"
           "hint: write one of: a + b (sum), a * b (prod), max(a, b) or maximum(a, b), min(a, b) or minimum(a, b), "
           "fmax(a, b) or fmin(a, b) (NaN ignored), a || b (any), a && b (all), and on bool a | b, a & b";
  };
  auto make = [](const char* in, const char* out, const char* map, const char* reduce, const char* post,
                 const char* identity, const char* type = "") {
    return [=] { ReductionKernel k(in, out, map, reduce, post, identity, "k", type); };
  };
  CHECK(error_of(make("T x", "T y", "x", "a - b", "y = a", "0"), ErrorCode::Program) ==
        SUPPORTED("a - b"));
  CHECK(error_of(make("T x", "T y", "x", "a + c", "y = a", "0"), ErrorCode::Program) ==
        SUPPORTED("a + c"));
  CHECK(error_of(make("T x", "T y", "x", "a + b", "y = a", "1"), ErrorCode::Usage) ==
        "kernel 'k': identity '1' is not the identity of a sum, 0: cujit's reductions start from their operation's "
        "identity; write '0' or leave it empty");
  CHECK(error_of(make("T x", "T y", "x", "a + b", "y = a", "T(1)"), ErrorCode::Usage) ==
        "kernel 'k': identity 'T(1)' is not the identity of a sum, 0: cujit's reductions start from their operation's "
        "identity; write '0' or leave it empty");
  CHECK(error_of(make("T x", "T y", "x", "a * b", "y = a", "zero"), ErrorCode::Usage) ==
        "kernel 'k': identity 'zero' is not the identity of a product, 1: cujit's reductions start from their "
        "operation's identity; write '1' or leave it empty");
  CHECK(error_of(make("T x", "T y", "x), (x", "a + b", "y = a", "0"), ErrorCode::Program) ==
        "error: kernel 'k': map_expr must be one expression\n"
        "  x), (x\n"
        "   ^\n"
        "hint: write an expression of the in_params, e.g. 'x * x'; the outputs are assigned in post_map_expr");
  CHECK(error_of(make("T x", "T y", "", "a + b", "y = a", "0"), ErrorCode::Usage) ==
        "kernel 'k': map_expr is empty; write the expression to reduce, e.g. 'x * x'");
  CHECK(error_of(make("T x", "T y", "x", "a + b", "x = a", "0"), ErrorCode::Program) ==
        "error: kernel 'k': post_map_expr assigns 'x', which is not an output\n"
        "  x = a\n"
        "  ^\n"
        "hint: assign the out_params from the reduced value a, e.g. 'y = a'");
  CHECK(error_of(make("T a", "T y", "a", "a + b", "y = a", "0"), ErrorCode::Usage) ==
        "kernel 'k': parameter name 'a' is taken: it is the reduced value in post_map_expr");
  CHECK(error_of(make("T x", "T y", "x", "a + b", "y = a", "0", "U"), ErrorCode::Usage) ==
        "kernel 'k': reduce_type 'U' is neither a dtype name nor a placeholder of the parameters");
  CHECK(error_of(make("float32 x", "float32 y", "x", "a | b", "y = a", "0"), ErrorCode::Usage) ==
        "kernel 'k': reduce_expr 'a | b' is bitwise on float32, and cujit has no bitwise reductions (on bool it is "
        "any); write 'a || b' for the logical one");
  CHECK(error_of(make("float32 x", "float32 y", "x + ", "a + b", "y = a", "0"), ErrorCode::Program) ==
        "error: expected an expression, found ',' (line 1)\n"
        "  float32 a = sum(x +, dtype=float32)\n"
        "                     ^");
  CHECK(error_of(make("T x", "T y", "x", "a + b", "y = a / _in_ind.size()", "0"), ErrorCode::Usage) ==
        "kernel 'k': CuPy's _in_ind and _out_ind are not part of cujit's language; for a mean, reduce with the "
        "language's own (cujit::evaluate(\"y = mean(x, axis=1)\")), or divide by a count passed as an input");
  CHECK(error_of(make("T x", "", "x", "a + b", "y = a", "0"), ErrorCode::Usage) ==
        "kernel 'k': out_params declares no output; declare the reduced result, e.g. 'T y'");
}

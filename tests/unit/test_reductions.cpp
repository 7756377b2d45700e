// Reductions on the CPU evaluator: NumPy's results (tests/data/reduction_cases.txt, written by
// tests/data/gen_reductions.py) on contiguous, transposed and strided inputs; the same bits on any
// thread count; float sums within a stated bound of the exact sum on adversarial data; the plan's
// passes; and the errors that need shapes (axes against the argument's dimensions). Run alone with
//     cujit_tests "[reduction]"
#include <algorithm>
#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "cpu/eval.hpp"
#include "cpu/reduce.hpp"
#include "cujit/error.hpp"
#include "cujit/evaluate.hpp"
#include "plan/reduce_plan.hpp"
#include "reference.hpp"

using namespace cujit;
using namespace cujit::ref;

namespace {

const std::string kData = CUJIT_TEST_DATA;

std::string first_line(const char* s) {
  const char* nl = std::strchr(s, '\n');
  return nl ? std::string(s, nl) : std::string(s);
}

enum class Layout { Contiguous, Transposed, Strided };
const char* layout_name(Layout l) {
  return l == Layout::Contiguous ? "contiguous" : l == Layout::Transposed ? "transposed" : "strided";
}

// The same values as `a` in another memory layout: its axes stored in reverse
// order (a transposed array's view), or every other element of a buffer twice as long.
struct Laid {
  HostArray buffer;
  ArrayView view;
};
Laid lay_out(const HostArray& a, Layout l) {
  Laid r;
  const Shape& s = a.shape();
  const auto item = static_cast<std::int64_t>(a.view().itemsize());
  if (l == Layout::Contiguous || (l == Layout::Transposed && s.ndim < 2)) {
    r.buffer = HostArray(a.dtype(), s);
    std::memcpy(r.buffer.data(), a.data(), a.nbytes());
    r.view = r.buffer.view();
    return r;
  }
  Shape strides;
  strides.ndim = s.ndim;
  if (l == Layout::Transposed) {
    Shape rev;
    rev.ndim = s.ndim;
    for (int d = 0; d < s.ndim; ++d) rev[d] = s[s.ndim - 1 - d];
    r.buffer = HostArray(a.dtype(), rev);
    std::int64_t st = item;
    for (int d = 0; d < s.ndim; ++d) {  // axis d of the view is axis ndim-1-d of the buffer
      strides[d] = st;
      st *= s[d];
    }
  } else {
    r.buffer = HostArray(a.dtype(), Shape{std::max<std::int64_t>(1, 2 * a.size())});
    std::int64_t st = 2 * item;
    for (int d = s.ndim - 1; d >= 0; --d) {
      strides[d] = st;
      st *= s[d];
    }
  }
  auto* dst = static_cast<unsigned char*>(r.buffer.data());
  const auto* src = static_cast<const unsigned char*>(a.data());
  for (std::int64_t k = 0; k < a.size(); ++k) {
    std::int64_t flat = k, off = 0;
    for (int d = s.ndim - 1; d >= 0; --d) {
      off += (flat % s[d]) * strides[d];
      flat /= s[d];
    }
    std::memcpy(dst + off, src + k * item, static_cast<std::size_t>(item));
  }
  r.view = a.view();
  r.view.data = dst;
  r.view.strides = strides;
  return r;
}

bool run_case(const RefCase& c, Layout layout) {
  std::vector<Laid> laid;
  std::vector<Input> inputs;
  for (const auto& in : c.inputs) laid.push_back(lay_out(in.array, layout));
  for (std::size_t k = 0; k < c.inputs.size(); ++k) {
    Input i;
    i.name = c.inputs[k].name;
    i.view = laid[k].view;
    inputs.push_back(i);
  }
  const std::string where = "case " + c.id + " (reduction_cases.txt:" + std::to_string(c.line) + "), " +
                            layout_name(layout) + "\n  program: " + c.program;
  if (c.error) {
    try {
      evaluate_cpu(c.program, inputs);
      FAIL_CHECK(where << "\n  expected the error: " << *c.error);
      return false;
    } catch (const Error& e) {
      if (first_line(e.what()) == *c.error && e.code() == ErrorCode::Data) return true;
      FAIL_CHECK(where << "\n  error: " << e.what() << "\n  expected: " << *c.error);
      return false;
    }
  }
  std::vector<Output> outs;
  try {
    outs = evaluate_cpu(c.program, inputs);
  } catch (const Error& e) {
    FAIL_CHECK(where << "\n  failed: " << e.what());
    return false;
  }
  bool ok = outs.size() == c.outputs.size();
  if (!ok) FAIL_CHECK(where << "\n  " << outs.size() << " outputs, expected " << c.outputs.size());
  for (std::size_t k = 0; ok && k < outs.size(); ++k) {
    const RefOutput& want = c.outputs[k];
    const HostArray& got = outs[k].array;
    if (outs[k].name != want.name || got.dtype() != want.array.dtype() || got.shape() != want.array.shape()) {
      FAIL_CHECK(where << "\n  output " << outs[k].name << ": " << dtype_name(got.dtype()) << " "
                       << shape_to_string(got.shape()) << ", expected " << want.name << ": "
                       << dtype_name(want.array.dtype()) << " " << shape_to_string(want.array.shape()));
      ok = false;
      break;
    }
    std::string why;
    if (!values_match(got.dtype(), got.data(), want.array.data(), got.size(), want.tol, &why)) {
      FAIL_CHECK(where << "\n  output " << want.name << ": " << why);
      ok = false;
    }
  }
  return ok;
}

// Python's math.fsum (Shewchuk's exact partials): the correctly rounded sum.
double fsum(const std::vector<double>& xs) {
  std::vector<double> p;
  for (double x : xs) {
    std::size_t i = 0;
    for (double y : p) {
      if (std::fabs(x) < std::fabs(y)) std::swap(x, y);
      const double hi = x + y, lo = y - (hi - x);
      if (lo != 0) p[i++] = lo;
      x = hi;
    }
    p.resize(i);
    p.push_back(x);
  }
  double hi = 0;
  while (!p.empty()) {
    const double x = hi;
    const double y = p.back();
    p.pop_back();
    hi = x + y;
    const double lo = y - (hi - x);
    if (lo != 0) {
      if (!p.empty() && ((lo < 0 && p.back() < 0) || (lo > 0 && p.back() > 0))) {
        const double y2 = lo * 2, x2 = hi + y2;
        if (y2 == x2 - hi) hi = x2;
      }
      break;
    }
  }
  return hi;
}

template <class T> HostArray host_of(const std::vector<T>& v) {
  HostArray a(dtype_of<T>, Shape{v.size()});
  std::memcpy(a.data(), v.data(), v.size() * sizeof(T));
  return a;
}

plan::ReduceStep full_sum(DType t, std::int64_t n) {
  plan::ReduceStep st;
  st.what = Reduce::Sum;
  st.in = st.acc = st.out = t;
  st.map_shape = Shape{n};
  st.axes = {0};
  st.count = n;
  return st;
}

}  // namespace

TEST_CASE("reduction cases match NumPy on contiguous, transposed and strided inputs", "[reduction][reference]") {
  const auto cases = load_eval_cases(kData + "/reduction_cases.txt");
  REQUIRE(cases.size() > 5000);
  int failed = 0;
  for (const RefCase& c : cases)
    for (Layout l : {Layout::Contiguous, Layout::Transposed, Layout::Strided})
      if (!run_case(c, l) && ++failed > 20) FAIL("more than 20 failures; stopping");
  CHECK(failed == 0);
}

TEST_CASE("a reduction gives the same bits on any number of threads", "[reduction]") {
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<float> u(-1, 1);
  const std::int64_t n = (1 << 20) + 4099;
  std::vector<float> v(static_cast<std::size_t>(n));
  for (float& x : v) x = u(rng);
  HostArray a = host_of(v);
  const plan::ReduceStep st = full_sum(DType::Float32, n);
  const float one = *reduce_host(a.view(), st, 1).as<float>();
  for (int threads : {2, 3, 8, 13}) CHECK(*reduce_host(a.view(), st, threads).as<float>() == one);
  // Over an axis: (1027, 1021), each axis, several thread counts.
  plan::ReduceStep ax = st;
  ax.map_shape = Shape{1027, 1021};
  HostArray m(DType::Float32, ax.map_shape);
  for (std::int64_t k = 0; k < m.size(); ++k) m.as<float>()[k] = u(rng);
  for (int axis : {0, 1}) {
    ax.axes = {axis};
    ax.count = ax.map_shape[axis];
    ax.out_shape = Shape{ax.map_shape[1 - axis]};
    HostArray r1 = reduce_host(m.view(), ax, 1), r4 = reduce_host(m.view(), ax, 4);
    CHECK(std::memcmp(r1.data(), r4.data(), r1.nbytes()) == 0);
  }
  // Results side by side (axis 0 of a C-contiguous array: 256 at a time, the lanes
  // across them) get the bits of one result at a time (the same values, transposed).
  HostArray t(DType::Float32, Shape{1021, 1027});
  for (std::int64_t r = 0; r < 1027; ++r)
    for (std::int64_t c = 0; c < 1021; ++c) t.as<float>()[c * 1027 + r] = m.as<float>()[r * 1021 + c];
  ArrayView tv = t.view();
  std::swap(tv.shape[0], tv.shape[1]);
  std::swap(tv.strides[0], tv.strides[1]);
  ax.axes = {0};
  ax.count = 1027;
  ax.out_shape = Shape{1021};
  HostArray cols = reduce_host(m.view(), ax, 3), rows = reduce_host(tv, ax, 2);
  CHECK(std::memcmp(cols.data(), rows.data(), cols.nbytes()) == 0);
}

// The stated bound: |sum - fsum| <= (log2(n) + 20) * eps * sum(|x|), for the accumulator's eps
// (NumPy's pairwise summation has the same form: 16 sequential additions in a leaf lane, then a
// tree). Checked on data that defeats sequential summation.
TEST_CASE("float sums stay within the stated bound of the exact sum on adversarial data", "[reduction]") {
  std::mt19937_64 rng(11);
  const std::int64_t n = 3'000'017;
  auto check = [&](const std::vector<double>& xs, const char* what) {
    double abs_sum = 0;
    for (double x : xs) abs_sum += std::fabs(x);
    const double exact = fsum(xs), bound64 = (std::log2(static_cast<double>(xs.size())) + 20) * 0x1p-53 * abs_sum;
    const double got64 = *reduce_host(host_of(xs).view(), full_sum(DType::Float64, static_cast<std::int64_t>(xs.size()))).as<double>();
    INFO(what << ": float64 sum " << got64 << ", exact " << exact);
    CHECK(std::fabs(got64 - exact) <= bound64);
    std::vector<float> fs(xs.begin(), xs.end());
    std::vector<double> fd(fs.begin(), fs.end());
    double fabs_sum = 0;
    for (double x : fd) fabs_sum += std::fabs(x);
    const double fexact = fsum(fd), bound32 = (std::log2(static_cast<double>(fs.size())) + 20) * 0x1p-24 * fabs_sum;
    const float got32 = *reduce_host(host_of(fs).view(), full_sum(DType::Float32, static_cast<std::int64_t>(fs.size()))).as<float>();
    INFO(what << ": float32 sum " << got32 << ", exact " << fexact << ", bound " << bound32);
    CHECK(std::fabs(static_cast<double>(got32) - fexact) <= bound32);
    // A sequential float32 sum misses by far more: the bound is not loose enough to hide one.
    float seq = 0;
    for (float x : fs) seq += x;
    INFO("sequential float32: " << seq);
    CHECK(std::fabs(static_cast<double>(got32) - fexact) <= std::fabs(static_cast<double>(seq) - fexact) + bound32 / 64);
  };
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> xs(static_cast<std::size_t>(n));
  for (double& x : xs) x = u(rng);
  check(xs, "large n, one sign");
  for (std::size_t k = 0; k < xs.size(); ++k) xs[k] = (k % 2 ? -1 : 1) * (1e6 + u(rng));
  check(xs, "cancellation");
  for (double& x : xs) x = std::ldexp(u(rng) - 0.3, static_cast<int>(u(rng) * 60) - 30);
  check(xs, "mixed magnitudes");
}

TEST_CASE("float16 and bfloat16 sums accumulate in float32", "[reduction]") {
  // 4096 ones: a float16 accumulator would stop at 2048.
  HostArray h(DType::Float16, Shape{4096});
  for (std::int64_t k = 0; k < h.size(); ++k) h.as<std::uint16_t>()[k] = 0x3c00;
  auto outs = evaluate_cpu("s = sum(x)", {{"x", h.view()}});
  CHECK(outs[0].array.dtype() == DType::Float16);
  CHECK(*outs[0].array.as<std::uint16_t>() == 0x6c00);  // 4096
}

TEST_CASE("evaluate() runs reductions on host arrays, with outputs of different shapes", "[reduction]") {
  HostArray x(DType::Float32, Shape{2, 3}), y(DType::Float32, Shape{2, 3});
  for (int k = 0; k < 6; ++k) x.as<float>()[k] = static_cast<float>(k + 1), y.as<float>()[k] = 2;
  auto outs = evaluate("s = sum(x*y); r = x / sum(x, axis=1, keepdims=true); m = argmax(x, axis=0)",
                       {{"x", x.view()}, {"y", y.view()}});
  REQUIRE(outs.size() == 3);
  CHECK(outs["s"].dtype() == DType::Float32);
  CHECK(outs["s"].shape() == Shape{});
  CHECK(*static_cast<const float*>(outs["s"].data()) == 42);
  CHECK(outs["r"].shape() == Shape{2, 3});
  CHECK(static_cast<const float*>(outs["r"].data())[5] == 6.0f / 15);
  CHECK(outs["m"].dtype() == DType::Int64);
  CHECK(outs["m"].shape() == Shape{3});
  CHECK(static_cast<const std::int64_t*>(outs["m"].data())[2] == 1);
}

TEST_CASE("an input updated in place by its own reduction reads its old values", "[reduction]") {
  HostArray x(DType::Float64, Shape{4});
  for (int k = 0; k < 4; ++k) x.as<double>()[k] = k;
  evaluate_cpu("x -= mean(x)", {{"x", x.view()}});
  CHECK(x.as<double>()[0] == -1.5);
  CHECK(x.as<double>()[3] == 1.5);
}

TEST_CASE("the reduction plan: passes, shapes and reads", "[reduction]") {
  const std::vector<Param> params = {{"x", DType::Float32}, {"y", DType::Float32}};
  Program p = compile_program(
      "z = (x - mean(x, axis=1, keepdims=true)) / std(x, axis=1, keepdims=true); s = sum(x*y); t = x - y", params);
  auto rp = plan::plan_reductions(p, {Shape{8, 5}, Shape{5}});
  REQUIRE(rp.reductions.size() == 3);
  CHECK(rp.reductions[0].what == Reduce::Mean);
  CHECK(rp.reductions[0].out_shape == Shape{8, 1});
  CHECK(rp.reductions[0].axes == std::vector<int>{1});
  CHECK(rp.reductions[1].what == Reduce::Std);
  CHECK(rp.reductions[2].map_shape == Shape{8, 5});
  CHECK(rp.reductions[2].out_shape == Shape{});
  CHECK(rp.reductions[2].count == 40);
  REQUIRE(rp.elementwise.size() == 2);
  CHECK(rp.elementwise[0].shape == Shape{8, 5});
  CHECK(rp.elementwise[0].outputs == std::vector<int>{0, 2});
  CHECK(rp.elementwise[0].reads == std::vector<int>{0, 1});
  CHECK(rp.elementwise[1].shape == Shape{});
  CHECK(rp.elementwise[1].outputs == std::vector<int>{1});
  CHECK(rp.elementwise[1].reads == std::vector<int>{2});
  auto d = plan::derive_elementwise(p, rp, 0);
  CHECK(d.inputs == std::vector<int>{0, 1, -1, -2});
  CHECK(d.program->inputs[2].name == "_r0");
  auto m = plan::derive_map(p, rp, 2);
  CHECK(m.inputs == std::vector<int>{0, 1});
  REQUIRE(m.program->outputs.size() == 1);
  CHECK(m.program->outputs[0].name == "_map");
  CHECK(!d.program->has_reductions);
}

TEST_CASE("axes are checked against the argument's dimensions, with a caret", "[reduction]") {
  auto error_of = [](const std::string& program, const Shape& shape) {
    HostArray x(DType::Float32, shape);
    try {
      evaluate_cpu(program, {{"x", x.view()}});
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::Program);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_of("out = sum(x, axis=2)", Shape{3, 4}) ==
        "error: axis 2 is out of bounds for array of dimension 2\n"
        "  out = sum(x, axis=2)\n"
        "                    ^\n"
        "hint: the argument of 'sum' has shape (3, 4): its axes are 0..1 (or -2..-1)");
  CHECK(error_of("out = max(x*2, axis=-2)", Shape{3}) ==
        "error: axis -2 is out of bounds for array of dimension 1\n"
        "  out = max(x*2, axis=-2)\n"
        "                      ^~\n"
        "hint: the argument of 'max' has shape (3,): its one axis is 0 (or -1)");
  CHECK(error_of("out = mean(x, axis=(0, -2))", Shape{3, 4}) ==
        "error: axis -2 repeats axis 0 (both are axis 0 of shape (3, 4))\n"
        "  out = mean(x, axis=(0, -2))\n"
        "                         ^~\n"
        "hint: give each axis once");
  CHECK(error_of("out = sum(x, axis=0)", Shape{}) ==
        "error: axis 0 is out of bounds for array of dimension 0\n"
        "  out = sum(x, axis=0)\n"
        "                    ^\n"
        "hint: the argument of 'sum' has shape (): it has no axes; drop axis=");
}

TEST_CASE("empty reductions: the identity, NaN, or NumPy's error", "[reduction]") {
  HostArray e(DType::Float64, Shape{0});
  auto one = [&](const char* program) { return evaluate_cpu(program, {{"x", e.view()}})[0].array; };
  CHECK(*one("s = sum(x)").as<double>() == 0);
  CHECK(*one("s = prod(x)").as<double>() == 1);
  CHECK(std::isnan(*one("s = mean(x)").as<double>()));
  CHECK(std::isnan(*one("s = var(x)").as<double>()));
  CHECK(!*one("s = any(x)").as<bool>());
  CHECK(*one("s = all(x)").as<bool>());
  try {
    one("s = max(x)");
    FAIL("no error");
  } catch (const Error& err) {
    CHECK(err.code() == ErrorCode::Data);
    CHECK(std::string(err.what()) == "zero-size array to reduction operation maximum which has no identity");
  }
}

TEST_CASE("reductions anywhere: nested, through locals, i and n of the argument", "[reduction]") {
  HostArray x(DType::Float64, Shape{2, 2});
  for (int k = 0; k < 4; ++k) x.as<double>()[k] = k + 1;  // 1 2 3 4
  auto run = [&](const char* program) { return evaluate_cpu(program, {{"x", x.view()}}); };
  // i and n count the argument's elements, not the output's.
  auto a = run("s = sum(x*0 + i); c = max(x*0 + n)");
  CHECK(*a[0].array.as<double>() == 6);
  CHECK(*a[1].array.as<double>() == 4);
  // A reduction inside a reduction's argument; a local read by a map and by a statement.
  auto b = run("v = sum((x - mean(x))**2); t = x*2; s = sum(t); out = t - s");
  CHECK(*b[0].array.as<double>() == 5);
  REQUIRE(b[1].name == "out");
  CHECK(b[1].array.shape() == Shape{2, 2});
  CHECK(b[1].array.as<double>()[3] == 8 - 20);
  // keepdims results broadcast back; a reduction of a reduction.
  auto c = run("r = x / sum(x, axis=0, keepdims=true); m = max(sum(x, axis=1))");
  CHECK(c[0].array.as<double>()[2] == 3.0 / 4);
  CHECK(*c[1].array.as<double>() == 7);
  // Outputs of one shape read one another; an output read by another shape is refused with a caret.
  CHECK(run("o = x*2; o = o + sum(x)")[0].array.as<double>()[0] == 12);
  auto error_of = [&](const char* program) {
    try {
      run(program);
    } catch (const Error& e) {
      CHECK(e.code() == ErrorCode::Program);
      return std::string(e.what());
    }
    return std::string("no error");
  };
  CHECK(error_of("o = x*2; o = o + 1; s = sum(o)") ==
        "error: output 'o' is read inside a reduction\n"
        "  o = x*2; o = o + 1; s = sum(o)\n"
        "                              ^\n"
        "hint: reduce a local instead, e.g. 't = ...; s = sum(t)'");
  CHECK(error_of("p = sum(x); p = p + 1; q = x + p") ==
        "error: output 'p' has shape (), and is read by a statement whose result has shape (2, 2)\n"
        "  p = sum(x); p = p + 1; q = x + p\n"
        "                                 ^\n"
        "hint: compute it as a local first, e.g. 't = ...', and read the local");
}

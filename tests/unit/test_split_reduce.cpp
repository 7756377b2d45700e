// How evaluate_split runs a program with reductions (plan/split_reduce.hpp):
// which inputs are cut, which steps run per slice, combine across slices or
// run once, which outputs come back cut, and the refusals, exact. Then the
// partials and their combine (cpu/split_combine.hpp) on the host: each
// slice's partial program run by the CPU evaluator on its rows, combined in
// slice order, against the CPU evaluator's reduction of the whole array, on
// fresh random data with ties across slices, NaN in a later slice, all-NaN
// slices, wrapping integers and 16-bit floats. What the GPUs do with them is
// tested in tests/gpu/test_split_reduce_gpu.cpp.
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "core/scalar.hpp"
#include "cpu/eval.hpp"
#include "cpu/split_combine.hpp"
#include "cujit/error.hpp"
#include "cujit/multi_gpu.hpp"
#include "error_of.hpp"
#include "lang/check.hpp"
#include "plan/split_plan.hpp"
#include "plan/split_reduce.hpp"

using namespace cujit;
using cujit::test::error_of;
using plan::StepCut;

namespace {

// The programs planned here (a plan points into its program); the last one.
std::vector<std::unique_ptr<Program>>& keep() {
  static std::vector<std::unique_ptr<Program>> k;
  return k;
}
const Program* r_program() { return keep().back().get(); }

plan::SplitReduce split_of(const std::string& source, const std::vector<std::pair<std::string, Shape>>& in,
                           DType t = DType::Float32) {
  std::vector<Param> params;
  std::vector<std::optional<Shape>> shapes;
  for (const auto& [name, s] : in) {
    params.push_back(Param{name, t, false, false});
    shapes.push_back(s);
  }
  keep().push_back(std::make_unique<Program>(compile_program(source, params)));
  return plan::plan_split_reduce("evaluate_split", *keep().back(), shapes);
}

std::string refusal(const std::string& source, const std::vector<std::pair<std::string, Shape>>& in) {
  return error_of([&] { split_of(source, in); }, ErrorCode::Usage);
}

}  // namespace

TEST_CASE("split reductions: rows that run apart, reductions over the split axis, whole ones", "[split][split_reduce]") {
  const Shape x{10, 4};
  SECTION("a reduction along each row runs per slice, its output cut") {
    auto r = split_of("m = mean(x, axis=-1)", {{"x", x}});
    CHECK(r.split);
    CHECK(r.rows == 10);
    CHECK(r.input_rows == std::vector<bool>{true});
    CHECK(r.steps == std::vector<StepCut>{StepCut::Rows});
    CHECK(r.output_rows == std::vector<bool>{true});
    CHECK_FALSE(r.across());
  }
  SECTION("row normalisation, a square input too") {
    const char* z = "z = (x - mean(x, axis=-1, keepdims=true)) / std(x, axis=-1, keepdims=true)";
    for (const Shape& s : {x, Shape{4, 4}}) {
      auto r = split_of(z, {{"x", s}});
      CHECK(r.steps == std::vector<StepCut>{StepCut::Rows, StepCut::Rows});
      CHECK(r.output_rows == std::vector<bool>{true});
    }
  }
  SECTION("sums over the split axis, an epilogue reading one") {
    auto r = split_of("s = sum(x); out = x / sum(x); k = argmax(x, axis=0)", {{"x", x}});
    CHECK(r.steps == std::vector<StepCut>{StepCut::Across, StepCut::Across, StepCut::Across});
    CHECK(r.output_rows == std::vector<bool>{false, true, false});
    CHECK(r.across());
  }
  SECTION("a broadcast input goes whole; its reduction is a Whole step") {
    auto r = split_of("s = sum(w); out = x * 2 + sum(x, axis=(0, 1))", {{"x", x}, {"w", Shape{4}}});
    CHECK(r.input_rows == std::vector<bool>{true, false});
    CHECK(r.steps == std::vector<StepCut>{StepCut::Whole, StepCut::Across});
    CHECK(r.output_rows == std::vector<bool>{false, true});
  }
  SECTION("both kinds in one program: each slice keeps its rows' results") {
    auto r = split_of("z = x / sum(x) - mean(x, axis=1, keepdims=true); c = sum(x - max(x, axis=1, keepdims=true))",
                      {{"x", x}});
    CHECK(r.steps == std::vector<StepCut>{StepCut::Across, StepCut::Rows, StepCut::Rows, StepCut::Across});
    CHECK(r.output_rows == std::vector<bool>{true, false});
  }
  SECTION("one row, or none: not split") {
    CHECK_FALSE(split_of("s = sum(x)", {{"x", Shape{1, 4}}}).split);
    CHECK_FALSE(split_of("s = sum(x)", {{"x", Shape{0, 4}}}).split);
    CHECK_FALSE(split_of("s = sum(x)", {{"x", Shape{}}}).split);
  }
}

TEST_CASE("split reductions: what a split run refuses", "[split][split_reduce]") {
  CHECK(refusal("d = x - mean(x, axis=-1)", {{"x", Shape{4, 4}}}) ==
        "evaluate_split: the program's rows do not run apart: a value along the split axis (axis 0 of its inputs of 2 "
        "dimension(s), 4 rows) is broadcast against another axis (as in `x - mean(x, axis=-1)` of a square x); run it "
        "on one GPU (evaluate(), jitrun --device N)");
  for (const char* call : {"nanargmax(x)", "nanargmin(x, axis=0)"})
    CHECK(refusal(std::string("m = ") + call, {{"x", Shape{10, 4}}}) ==
          std::string("evaluate_split: `") + call +
              "`: a split run does not combine this reduction's per-GPU partials in a program that reduces over the "
              "split axis (it combines every reduction of real values but nanargmin and nanargmax); run it on one GPU "
              "(evaluate(), jitrun --device N)");
  // Along the rows, the same reductions are each slice's own.
  CHECK(split_of("m = nanmean(x, axis=1); k = nanargmax(x, axis=-1)", {{"x", Shape{10, 4}}}).steps ==
        std::vector<StepCut>{StepCut::Rows, StepCut::Rows});
}

TEST_CASE("split reductions: each slice's partial program", "[split][split_reduce]") {
  auto step0 = [](const std::string& src, DType t, const Shape& s) {
    return split_of(src, {{"x", s}}, t).plan.reductions[0];
  };
  const Shape x{10, 4};
  CHECK(plan::partial_source(step0("s = sum(x)", DType::Float16, x)) == "p = sum(m, dtype=float32)");
  CHECK(plan::partial_source(step0("s = sum(x, axis=0)", DType::Int32, x)) == "p = sum(m, axis=(0,), dtype=int64)");
  CHECK(plan::partial_source(step0("s = mean(x, axis=0)", DType::UInt8, x)) == "p = sum(m, axis=(0,), dtype=float64)");
  CHECK(plan::partial_source(step0("s = nanprod(x)", DType::Float64, x)) == "p = nanprod(m, dtype=float64)");
  CHECK(plan::partial_source(step0("s = nanmax(x, axis=(0, 2))", DType::Float32, Shape{10, 4, 3})) ==
        "p = nanmax(m, axis=(0, 2))");
  CHECK(plan::partial_source(step0("k = argmax(x)", DType::Float32, x)) == "v = max(m); k = argmax(m)");
  CHECK(plan::partial_source(step0("k = argmin(x, axis=0)", DType::Int8, x)) ==
        "v = min(m, axis=(0,)); k = argmin(m, axis=0)");
  CHECK(plan::partial_source(step0("v = std(x, ddof=1)", DType::BFloat16, x)) ==
        "a = mean(float32(m)); v = var(float32(m))");
  CHECK(plan::partial_source(step0("a = all(x, axis=0)", DType::Bool, x)) == "p = all(m, axis=(0,))");
  CHECK(plan::partial_source(step0("s = nanmean(x, axis=0)", DType::Float32, x)) ==
        "p = nansum(m, axis=(0,), dtype=float32); c = sum(m == m, axis=(0,))");
  CHECK(plan::partial_source(step0("s = nanvar(x)", DType::Float64, x)) ==
        "a = nanmean(m); v = nanvar(m); c = sum(m == m)");
  // A reduction along the rows, as each slice runs it.
  CHECK(plan::step_source(step0("s = mean(x, axis=-1, keepdims=true, dtype=float64)", DType::Float32, x)) ==
        "p = mean(m, axis=(1,), keepdims=true, dtype=float64)");
  CHECK(plan::step_source(step0("s = nanstd(x, axis=(1, 2), ddof=1)", DType::Float32, Shape{10, 4, 3})) ==
        "p = nanstd(m, axis=(1, 2), ddof=1)");
  CHECK(plan::step_source(step0("k = argmax(x, axis=1)", DType::Int16, x)) == "p = argmax(m, axis=1)");
  CHECK(plan::step_source(step0("s = sum(x, axis=())", DType::Int16, x)) == "p = sum(m, axis=())");
  // Each is a program the language takes, with the step's result dtype.
  for (const char* src : {"s = sum(x)", "s = mean(x, axis=0)", "s = nanprod(x)", "s = nanmean(x)", "s = nanstd(x, axis=0)", "k = argmax(x)", "k = argmin(x, axis=0)",
                          "v = std(x, ddof=1)", "a = all(x, axis=0)", "s = nanmin(x)", "s = any(x)"})
    for (DType t : {DType::Bool, DType::Int8, DType::UInt32, DType::Float16, DType::Float32}) {
      CAPTURE(src, dtype_name(t));
      const plan::ReduceStep st = step0(src, t, x);
      const std::string partial = plan::partial_source(st), own = plan::step_source(st);
      CHECK_NOTHROW(compile_program(partial, {{"m", t}}));
      CHECK(compile_program(own, {{"m", t}}).outputs.at(0).dtype == st.out);
    }
}

namespace {

// `source` (one output, a reduction of x over the split axis) with x cut into
// `pieces` slices, each slice's partials computed by the CPU evaluator and
// combined, against the CPU evaluator on the whole of x.
void check_combine(const std::string& source, const HostArray& x, int pieces) {
  CAPTURE(source, dtype_name(x.dtype()), pieces);
  const auto r = split_of(source, {{"x", x.shape()}}, x.dtype());
  REQUIRE(r.steps.size() == 1);
  REQUIRE(r.steps[0] == StepCut::Across);
  const plan::ReduceStep& st = r.plan.reductions[0];
  const plan::Derived map = plan::derive_map(*r_program(), r.plan, 0);
  std::vector<std::vector<Output>> outs;
  std::vector<SlicePartials> sp;
  for (const SplitSlice& s : plan_split(x.shape(), {}, std::vector<int>(static_cast<std::size_t>(pieces), 0))) {
    ArrayView rows = x.view();
    rows.data = static_cast<char*>(rows.data) + s.begin * rows.strides[0];
    rows.shape[0] = s.end - s.begin;
    // The slice's map (x > 0, 1 + x*0.01), as the GPUs compute it before their partials.
    outs.push_back(evaluate_program(*map.program, {{"x", rows}}));
    const ArrayView m = outs.back()[0].array.view();
    outs.push_back(evaluate_cpu(plan::partial_source(st), {{"m", m}}));
    SlicePartials p;
    for (const Output& o : outs.back()) p.values.push_back(o.array.view());
    p.count = plan::partial_count(st, r.rows, s.begin, s.end);
    p.offset = plan::partial_offset(st, r.rows, s.begin);
    sp.push_back(p);
  }
  const HostArray got = combine_partials(st, sp);
  const std::vector<Output> want = evaluate_cpu(source, {{"x", x.view()}});
  REQUIRE(got.dtype() == want[0].array.dtype());
  REQUIRE(got.shape() == want[0].array.shape());
  const bool exact = !is_float(got.dtype()) || st.what == Reduce::Min || st.what == Reduce::Max;
  for (std::int64_t o = 0; o < got.size(); ++o) {
    CAPTURE(o);
    if (exact) {
      CHECK(std::memcmp(static_cast<const char*>(got.data()) + o * got.view().itemsize(),
                        static_cast<const char*>(want[0].array.data()) + o * got.view().itemsize(), got.view().itemsize()) == 0);
      continue;
    }
    const double g = scalar::visit(got.dtype(), [&](auto tag) -> double {
      using T = decltype(tag);
      if constexpr (scalar::is_cplx_v<T>) return 0;
      else return scalar::cast<double>(static_cast<const T*>(got.data())[o]);
    });
    const double w = scalar::visit(got.dtype(), [&](auto tag) -> double {
      using T = decltype(tag);
      if constexpr (scalar::is_cplx_v<T>) return 0;
      else return scalar::cast<double>(static_cast<const T*>(want[0].array.data())[o]);
    });
    const double tol = got.dtype() == DType::Float64 ? 1e-12 : got.dtype() == DType::Float32 ? 2e-5 : 4e-3;
    if (std::isnan(w)) CHECK(std::isnan(g));
    else CHECK(std::abs(g - w) <= tol * std::max(1.0, std::abs(w)));
  }
}

// Fresh data every run, replayable: $CUJIT_TEST_SEED when set; the seed is in a failure's messages.
std::uint64_t seed() {
  const char* e = std::getenv("CUJIT_TEST_SEED");
  static const std::uint64_t s = e && *e ? std::strtoull(e, nullptr, 0) : std::random_device{}();
  return s;
}

template <class T> HostArray filled(DType t, const Shape& s, std::mt19937_64& rng, double lo, double hi, bool integral = false) {
  HostArray h(t, s);
  std::uniform_real_distribution<double> u(lo, hi);
  for (std::int64_t k = 0; k < h.size(); ++k) {
    const double v = integral ? std::floor(u(rng)) : u(rng);
    h.as<T>()[k] = scalar::cast<T>(v);
  }
  return h;
}

}  // namespace

TEST_CASE("split reductions: partials combined in slice order give the CPU's result", "[split][split_reduce]") {
  INFO("CUJIT_TEST_SEED=" << seed());
  std::mt19937_64 rng(seed());
  const HostArray f32 = filled<float>(DType::Float32, Shape{37, 5}, rng, -1, 1);
  const HostArray f64 = filled<double>(DType::Float64, Shape{37, 3, 4}, rng, -1, 1);
  for (int pieces : {1, 2, 3, 7, 37}) {
    for (const char* s : {"r = sum(x)", "r = sum(x, axis=0)", "r = mean(x)", "r = mean(x, axis=0, keepdims=true)",
                          "r = min(x)", "r = max(x, axis=0)", "r = argmin(x)", "r = argmax(x, axis=0)", "r = any(x > 0.9)",
                          "r = all(x > -0.99, axis=0)", "r = var(x)", "r = std(x, axis=0, ddof=1)", "r = nansum(x)",
                          "r = nanmin(x, axis=0)", "r = nanmax(x)", "r = prod(1 + x * 0.01)"}) {
      check_combine(s, f32, pieces);
      check_combine(s, f64, pieces);
    }
    check_combine("r = sum(x, axis=(0, 2))", f64, pieces);
    check_combine("r = var(x, axis=(0, 1), keepdims=true)", f64, pieces);
  }
}

TEST_CASE("split reductions: ties and NaN across slices, integers, 16-bit floats", "[split][split_reduce]") {
  INFO("CUJIT_TEST_SEED=" << seed());
  std::mt19937_64 rng(seed() + 1);
  // Every maximum equal: the first slice's first index; one in slices 2 and 3: slice 2's.
  HostArray ties(DType::Float32, Shape{9, 2});
  for (std::int64_t k = 0; k < 18; ++k) ties.as<float>()[k] = 1.0f;
  check_combine("r = argmax(x)", ties, 3);
  check_combine("r = argmin(x, axis=0)", ties, 3);
  ties.as<float>()[7] = 2.0f, ties.as<float>()[13] = 2.0f;
  check_combine("r = argmax(x)", ties, 3);
  // A NaN in a later slice wins argmin, min and any; the nan- versions skip it,
  // and a slice of nothing but NaN gives nanmin the other slices' minimum.
  HostArray nan = filled<double>(DType::Float64, Shape{12, 3}, rng, -1, 1);
  nan.as<double>()[31] = NAN, nan.as<double>()[34] = NAN;
  for (const char* s : {"r = argmin(x)", "r = argmin(x, axis=0)", "r = min(x)", "r = max(x, axis=0)", "r = sum(x)",
                        "r = nanmin(x)", "r = nanmax(x, axis=0)", "r = nansum(x, axis=0)", "r = var(x)", "r = nanmean(x)",
                        "r = nanvar(x, axis=0, ddof=1)", "r = nanstd(x)"})
    check_combine(s, nan, 4);
  for (int k = 27; k < 36; ++k) nan.as<double>()[k] = NAN;
  for (const char* s : {"r = nanmin(x, axis=0)", "r = nanmax(x)", "r = nanmean(x, axis=0)", "r = nanstd(x, axis=0)",
                        "r = nanvar(x)"})
    check_combine(s, nan, 4);
  // A column of nothing but NaN, or of one number: nanmean NaN, nanvar NaN where n - ddof <= 0.
  for (int k = 0; k < 12; ++k) nan.as<double>()[k * 3 + 1] = NAN;
  nan.as<double>()[3 * 3 + 2] = 0.5;
  for (int k = 0; k < 12; ++k) if (k != 3) nan.as<double>()[k * 3 + 2] = NAN;
  for (const char* s : {"r = nanmean(x, axis=0)", "r = nanvar(x, axis=0)", "r = nanstd(x, axis=0, ddof=1)"})
    check_combine(s, nan, 4);
  // Sums and products that wrap, as NumPy's in 64 bits; unsigned means.
  HostArray big(DType::Int64, Shape{8, 2});
  for (std::int64_t k = 0; k < 16; ++k) big.as<std::int64_t>()[k] = (std::int64_t{1} << 62) + k;
  check_combine("r = sum(x)", big, 3);
  check_combine("r = prod(x, axis=0)", big, 3);
  check_combine("r = sum(x, dtype=int8)", big, 3);
  const HostArray u8 = filled<std::uint8_t>(DType::UInt8, Shape{40, 3}, rng, 0, 256, true);
  for (const char* s : {"r = sum(x)", "r = prod(x, axis=0)", "r = mean(x)", "r = var(x, axis=0)", "r = argmax(x)",
                        "r = nanmean(x)", "r = nanstd(x, axis=0)"})
    check_combine(s, u8, 5);
  const HostArray b = filled<bool>(DType::Bool, Shape{11, 2}, rng, 0, 2, true);
  for (const char* s : {"r = sum(x)", "r = any(x, axis=0)", "r = all(x)", "r = argmax(x)", "r = mean(x)"}) check_combine(s, b, 4);
  const HostArray h = filled<scalar::Half>(DType::Float16, Shape{30, 4}, rng, -2, 2);
  for (const char* s : {"r = sum(x)", "r = mean(x, axis=0)", "r = min(x)", "r = argmax(x, axis=0)", "r = std(x)"})
    check_combine(s, h, 3);
}

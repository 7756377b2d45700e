// The CPU reductions' fast paths at their seams: min/max/argmin/argmax in vector chains, chunks of
// 4096 and segments of 65536 (a NaN in the last one, ties across segments that different threads
// take), sum leaves at their lengths, axis-0 sums over odd shapes, and a whole-array reduction's
// map computed segment by segment inside it (the same bits as through a temporary). Run alone with
//     cujit_tests "[reduction][blocks]"
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "cpu/eval.hpp"
#include "cpu/eval_loops.hpp"
#include "cpu/reduce.hpp"
#include "cujit/evaluate.hpp"
#include "plan/reduce_plan.hpp"

using namespace cujit;

namespace {

plan::ReduceStep step(Reduce what, DType in, DType out, const Shape& shape, std::vector<int> axes) {
  plan::ReduceStep st;
  st.what = what;
  st.in = in;
  st.acc = (what == Reduce::Sum || what == Reduce::Mean) ? out : in;
  st.out = out;
  st.map_shape = shape;
  st.axes = axes;
  st.count = 1;
  Shape o;
  for (int d = 0; d < shape.ndim; ++d) {
    bool reduced = false;
    for (int a : axes) reduced = reduced || a == d;
    if (reduced) st.count *= shape[d];
    else o[o.ndim++] = shape[d];
  }
  st.out_shape = o;
  return st;
}

template <class T> HostArray array_of(const std::vector<T>& v) {
  HostArray a(dtype_of<T>, Shape{static_cast<std::int64_t>(v.size())});
  std::memcpy(a.data(), v.data(), v.size() * sizeof(T));
  return a;
}

// NumPy's rule one element at a time: the first NaN, else the first extremum.
template <class T> std::int64_t reference_arg(const std::vector<T>& v, bool max) {
  std::int64_t at = 0;
  for (std::size_t k = 0; k < v.size(); ++k) {
    if (v[k] != v[k]) return static_cast<std::int64_t>(k);
    if (max ? v[at] < v[k] : v[k] < v[at]) at = static_cast<std::int64_t>(k);
  }
  return at;
}

const std::vector<std::int64_t> kSizes = {1, 7, 31, 32, 33, 4095, 4096, 4097, 65535, 65536, 65537, 3 * 65536 + 5};

template <class T> void check_extrema(std::mt19937_64& rng) {
  const DType t = dtype_of<T>;
  for (std::int64_t n : kSizes) {
    std::vector<T> v(static_cast<std::size_t>(n));
    std::uniform_int_distribution<int> u(-1000, 1000);
    for (T& x : v) x = static_cast<T>(u(rng));
    // Ties: the extremum in several segments, the last ones first in no thread's order.
    std::vector<std::size_t> spots = {static_cast<std::size_t>(n - 1), static_cast<std::size_t>(n / 2),
                                      static_cast<std::size_t>(n / 3)};
    for (std::size_t s : spots) v[s] = static_cast<T>(5000), v[n - 1 - s] = static_cast<T>(-5000);
    for (int pass = 0; pass < 2; ++pass) {
      if (pass == 1) {
        if constexpr (!std::is_floating_point_v<T>) break;
        // A NaN in the last segment, in its last vector: the answer of min, max and both args.
        v[static_cast<std::size_t>(n - 1)] = std::numeric_limits<T>::quiet_NaN();
        if (n > 40) v[static_cast<std::size_t>(n - 40)] = std::numeric_limits<T>::quiet_NaN();
      }
      const HostArray a = array_of(v);
      for (bool max : {true, false}) {
        const std::int64_t want = reference_arg(v, max);
        for (int threads : {1, 2, 3, 8}) {
          INFO(dtype_name(t) << " n=" << n << (max ? " argmax" : " argmin") << " pass " << pass << " threads " << threads);
          const HostArray idx = reduce_host(a.view(), step(max ? Reduce::ArgMax : Reduce::ArgMin, t, DType::Int64, a.shape(), {0}), threads);
          CHECK(*idx.as<std::int64_t>() == want);
          const HostArray val = reduce_host(a.view(), step(max ? Reduce::Max : Reduce::Min, t, t, a.shape(), {0}), threads);
          const T got = *val.as<T>(), w = v[static_cast<std::size_t>(want)];
          CHECK((got == w || (got != got && w != w)));
        }
      }
    }
  }
}

}  // namespace

TEST_CASE("min, max, argmin, argmax at the vector, chunk and segment seams", "[reduction][blocks]") {
  // With each instruction set's loops this CPU can run (float32 and float64
  // extrema come from reduce_loops.cpp's per-target loops).
  struct Restore {
    ~Restore() { cpu::force_loop_target(""); }
  } restore;
  for (const std::string& target : cpu::loop_targets()) {
    if (!cpu::cpu_has_target(target)) continue;
    cpu::force_loop_target(target);
    INFO("loops " << target);
    std::mt19937_64 rng(20);
    check_extrema<float>(rng);
    check_extrema<double>(rng);
    check_extrema<std::int32_t>(rng);
    check_extrema<std::int8_t>(rng);
  }
}

TEST_CASE("of +0 and -0 the first is max's value and argmax's index", "[reduction][blocks]") {
  std::vector<float> v(70000, -1.0f);
  v[66000] = -0.0f;
  v[69000] = 0.0f;
  const HostArray a = array_of(v);
  for (int threads : {1, 2}) {
    const float m = *reduce_host(a.view(), step(Reduce::Max, DType::Float32, DType::Float32, a.shape(), {0}), threads).as<float>();
    CHECK(std::signbit(m));
    CHECK(*reduce_host(a.view(), step(Reduce::ArgMax, DType::Float32, DType::Int64, a.shape(), {0}), threads).as<std::int64_t>() == 66000);
  }
}

TEST_CASE("sums at the leaf lengths stay within the bound and give the same bits on any thread count", "[reduction][blocks]") {
  std::mt19937_64 rng(21);
  std::uniform_real_distribution<double> u(-1, 1);
  for (std::int64_t n : {7, 8, 9, 127, 128, 129, 255, 256, 257, 511, 512, 513, 65537, 3 * 65536 + 511}) {
    std::vector<float> f(static_cast<std::size_t>(n));
    std::vector<double> d(f.size());
    double exact = 0, abs_sum = 0;  // float32 values summed in double: exact enough for the bound
    for (std::size_t k = 0; k < f.size(); ++k) f[k] = static_cast<float>(u(rng)), d[k] = f[k], exact += d[k], abs_sum += std::fabs(d[k]);
    const HostArray af = array_of(f), ad = array_of(d);
    const float one = *reduce_host(af.view(), step(Reduce::Sum, DType::Float32, DType::Float32, af.shape(), {0}), 1).as<float>();
    INFO("n=" << n);
    CHECK(std::fabs(one - exact) <= (std::log2(static_cast<double>(n)) + 20) * 0x1p-24 * abs_sum);
    for (int threads : {2, 3})
      CHECK(*reduce_host(af.view(), step(Reduce::Sum, DType::Float32, DType::Float32, af.shape(), {0}), threads).as<float>() == one);
    const double d1 = *reduce_host(ad.view(), step(Reduce::Sum, DType::Float64, DType::Float64, ad.shape(), {0}), 1).as<double>();
    CHECK(std::fabs(d1 - exact) <= (std::log2(static_cast<double>(n)) + 20) * 0x1p-53 * abs_sum + 1e-9 * abs_sum * 0x1p-24);
    CHECK(*reduce_host(ad.view(), step(Reduce::Sum, DType::Float64, DType::Float64, ad.shape(), {0}), 2).as<double>() == d1);
  }
  // Under 8 elements the sum is NumPy's, in order.
  const std::vector<float> few = {1e8f, 1.0f, -1e8f, 1.0f};
  const HostArray a = array_of(few);
  CHECK(*reduce_host(a.view(), step(Reduce::Sum, DType::Float32, DType::Float32, a.shape(), {0}), 1).as<float>() == ((1e8f + 1.0f) - 1e8f) + 1.0f);
}

TEST_CASE("axis-0 sums over odd shapes: rows added in place give the bits of one column at a time", "[reduction][blocks]") {
  std::mt19937_64 rng(22);
  std::uniform_real_distribution<double> u(-1, 1);
  const std::vector<std::pair<std::int64_t, std::int64_t>> shapes = {{3, 5}, {7, 300}, {8, 129}, {513, 1}, {1027, 257},
                                                                     {65537, 3}, {600, 131}, {196609, 2}, {1100, 1030}};
  for (auto [rows, cols] : shapes) {
    for (DType t : {DType::Float32, DType::Float64}) {
      HostArray m(t, Shape{rows, cols}), tr(t, Shape{cols, rows});
      for (std::int64_t r = 0; r < rows; ++r)
        for (std::int64_t c = 0; c < cols; ++c) {
          const double v = u(rng);
          if (t == DType::Float32) m.as<float>()[r * cols + c] = tr.as<float>()[c * rows + r] = static_cast<float>(v);
          else m.as<double>()[r * cols + c] = tr.as<double>()[c * rows + r] = v;
        }
      // The transposed copy seen as (rows, cols): each result's elements side by side.
      ArrayView tv = tr.view();
      std::swap(tv.shape[0], tv.shape[1]);
      std::swap(tv.strides[0], tv.strides[1]);
      const plan::ReduceStep st = step(Reduce::Sum, t, t, Shape{rows, cols}, {0});
      INFO(rows << "x" << cols << " " << dtype_name(t));
      for (int threads : {1, 2, 3}) {
        const HostArray cols_sum = reduce_host(m.view(), st, threads), rows_sum = reduce_host(tv, st, 1);
        CHECK(std::memcmp(cols_sum.data(), rows_sum.data(), cols_sum.nbytes()) == 0);
      }
    }
  }
}

TEST_CASE("a whole-array reduction's map computed inside it gives the bits of the map through a temporary", "[reduction][blocks]") {
  std::mt19937_64 rng(23);
  std::uniform_real_distribution<float> u(-1, 1);
  const std::int64_t n = 3 * 65536 + 77;
  HostArray x(DType::Float32, Shape{n / 7, 7}), y(DType::Float32, Shape{n / 7, 7});
  for (std::int64_t k = 0; k < x.size(); ++k) x.as<float>()[k] = u(rng), y.as<float>()[k] = u(rng);
  x.as<float>()[x.size() - 3] = std::numeric_limits<float>::quiet_NaN();  // in the last segment
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"s = sum(x*y)", "t = x*y"},           {"s = mean(x*y + 1)", "t = x*y + 1"},
      {"s = max(abs(x - y))", "t = abs(x - y)"}, {"s = argmin(x - y)", "t = x - y"},
      {"s = argmax(y*2)", "t = y*2"},         {"s = any(y > 0.9999)", "t = y > 0.9999"},
      {"s = nanmax(x*y)", "t = x*y"},         {"s = sum(x*0 + i)", "t = x*0 + i"}};
  for (const auto& [reduce, map] : cases) {
    INFO(reduce);
    auto fused = evaluate(reduce, {{"x", x.view()}, {"y", y.view()}});
    auto t = evaluate(map, {{"x", x.view()}, {"y", y.view()}});
    // The same reduction of the temporary, read in place.
    const std::string fn = reduce.substr(4, reduce.find('(') - 4);
    auto of_t = evaluate("s = " + fn + "(t)", {{"t", t["t"].view()}});
    REQUIRE(fused["s"].nbytes() == of_t["s"].nbytes());
    CHECK(std::memcmp(fused["s"].data(), of_t["s"].data(), fused["s"].nbytes()) == 0);
  }
  // i counts the map's elements across segments.
  CHECK(*evaluate("s = sum(x*0 + i)", {{"x", x.view()}})["s"].as<float>() ==
        *evaluate("s = sum(t)", {{"t", evaluate("t = x*0 + i", {{"x", x.view()}})["t"].view()}})["s"].as<float>());
}

TEST_CASE("BlockEvaluator gives evaluate_elementwise's values for any block", "[reduction][blocks]") {
  HostArray x(DType::Float64, Shape{5000, 3});
  for (std::int64_t k = 0; k < x.size(); ++k) x.as<double>()[k] = static_cast<double>(k % 97) - 40;
  const std::vector<Param> params = {{"x", DType::Float64}};
  const Program p = compile_program("t = sqrt(abs(x)) * i - x", params);
  REQUIRE(BlockEvaluator::applies(p));
  const std::vector<Input> in = {{"x", x.view()}};
  const auto whole = evaluate_elementwise(p, in);
  BlockEvaluator blocks(p, in, x.shape(), 2);
  std::vector<double> got(static_cast<std::size_t>(x.size()));
  // Blocks across the evaluator's chunks of 4096, on two workers.
  std::int64_t start = 0;
  for (std::int64_t len : {1, 4095, 4097, 3, 5000}) {
    blocks.run(static_cast<int>(start % 2), start, len, got.data() + start);
    start += len;
  }
  blocks.run(0, start, x.size() - start, got.data() + start);
  CHECK(std::memcmp(got.data(), whole[0].array.data(), whole[0].array.nbytes()) == 0);
}

// Issue 22: the CPU evaluator writes a given C-contiguous output, and an input
// updated in place, straight into the caller's memory; a staging copy made
// the in-place physics loop twice as slow as NumPy. Results alone cannot tell
// a direct write from a copy made at the end, so the progress callback, called
// between chunks on one thread, looks at the caller's array mid-run: written
// already when direct, untouched when staged. A program that can fail at run
// time must still stage what it updates in place (the arrays stay as they were
// when it fails), and that is checked the same way.
#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

#include "catch.hpp"
#include "cpu/eval.hpp"
#include "cujit/array.hpp"
#include "lang/check.hpp"

using namespace cujit;

namespace {

constexpr std::int64_t kElements = 3 * 4096 + 17;  // several of the evaluator's chunks

// Runs `p` on one thread and returns what `watched[0]` held at the first
// progress call that came before the end.
double first_element_mid_run(const Program& p, const std::vector<Input>& inputs, const ArrayView* outputs,
                             const double* watched) {
  double seen = std::numeric_limits<double>::quiet_NaN();
  bool looked = false;
  CpuOptions options;
  options.threads = 1;
  options.progress = [&](std::int64_t done, std::int64_t total) {
    if (!looked && done < total) seen = watched[0], looked = true;
  };
  evaluate_program(p, inputs, nullptr, options, outputs);
  REQUIRE(looked);
  return seen;
}

}  // namespace

TEST_CASE("CPU evaluator: a given contiguous output is written in place, not copied at the end", "[eval][inplace]") {
  Program p = compile_program("y = x + 1.5", {{"x", DType::Float64}});
  std::vector<double> x(kElements, 2.0), y(kElements, std::numeric_limits<double>::quiet_NaN());
  ArrayView out = ArrayView::host(y.data(), {kElements});
  CHECK(first_element_mid_run(p, {Input{"x", ArrayView::host(x.data(), {kElements})}}, &out, y.data()) == 3.5);
  CHECK(y[kElements - 1] == 3.5);
}

TEST_CASE("CPU evaluator: an input updated in place is written in its own array as the run goes", "[eval][inplace]") {
  Program p = compile_program("x *= 0.5; x += 1", {{"x", DType::Float64}});
  std::vector<double> x(kElements, 4.0);
  CHECK(first_element_mid_run(p, {Input{"x", ArrayView::host(x.data(), {kElements})}}, nullptr, x.data()) == 3.0);
  CHECK(x[kElements - 1] == 3.0);
}

TEST_CASE("CPU evaluator: a program that can fail at run time stages what it updates in place", "[eval][inplace]") {
  Program p = compile_program("x += r[i % 2]", {{"x", DType::Float64}, {"r", DType::Float64, false, true}});
  REQUIRE(p.can_fail);
  std::vector<double> x(kElements, 4.0), r = {1.0, 2.0};
  std::vector<Input> inputs = {Input{"x", ArrayView::host(x.data(), {kElements})},
                               Input{"r", ArrayView::host(r.data(), {2}), false, true}};
  CHECK(first_element_mid_run(p, inputs, nullptr, x.data()) == 4.0);
  CHECK(x[0] == 5.0);
  CHECK(x[kElements - 1] == 4.0 + r[(kElements - 1) % 2]);
}

TEST_CASE("CPU evaluator: outputs past the caches (written with streaming stores) are exact at any alignment",
          "[eval][inplace][stream]") {
  // 40 MiB + 7 elements of int8: past the streaming size, an odd length, and a
  // given output one byte off every alignment; an int8 input updated in place;
  // a float32 new array; all with several threads, poisoned first.
  const std::int64_t n = (std::int64_t{40} << 20) + 7;
  std::vector<std::int8_t> k(static_cast<std::size_t>(n));
  for (std::int64_t j = 0; j < n; ++j) k[static_cast<std::size_t>(j)] = static_cast<std::int8_t>(j * 7 % 251);
  std::vector<std::int8_t> under(static_cast<std::size_t>(n) + 64, 0x55);
  std::int8_t* y = under.data() + 1;
  ArrayView out = ArrayView::host(y, {n});
  Program p = compile_program("y = k * 3", {{"k", DType::Int8}});
  CpuOptions two;
  two.threads = 2;
  evaluate_program(p, {Input{"k", ArrayView::host(k.data(), {n})}}, nullptr, two, &out);
  std::int64_t bad = 0;
  for (std::int64_t j = 0; j < n; ++j) bad += y[j] != static_cast<std::int8_t>(k[static_cast<std::size_t>(j)] * 3);
  CHECK(bad == 0);
  CHECK(under[0] == 0x55);  // nothing written outside the output
  for (std::size_t j = static_cast<std::size_t>(n) + 1; j < under.size(); ++j) CHECK(under[j] == 0x55);

  Program q = compile_program("k += 1; f = float32(k) * 0.5", {{"k", DType::Int8}});
  std::vector<std::int8_t> before = k;
  auto outs = evaluate_program(q, {Input{"k", ArrayView::host(k.data(), {n})}}, nullptr, two);
  const float* f = nullptr;
  for (const Output& o : outs)
    if (o.name == "f") f = o.array.as<float>();
  REQUIRE(f != nullptr);
  bad = 0;
  for (std::int64_t j = 0; j < n; ++j) {
    const auto want = static_cast<std::int8_t>(before[static_cast<std::size_t>(j)] + 1);
    bad += k[static_cast<std::size_t>(j)] != want || f[j] != static_cast<float>(want) * 0.5f;
  }
  CHECK(bad == 0);
}

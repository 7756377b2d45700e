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

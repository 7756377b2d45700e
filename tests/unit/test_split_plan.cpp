// The slicing plan of evaluate_split (src/api/split_plan.hpp): shapes,
// broadcast inputs, remainders, fewer rows than devices, empty and 0-d outputs.
#include "catch.hpp"

#include <optional>
#include <vector>

#include "plan/split_plan.hpp"
#include "cujit/error.hpp"

using namespace cujit;

namespace {
// Every row of the output exactly once, in order, and slice shapes that agree.
void check_cover(const std::vector<SplitSlice>& plan, const Shape& out) {
  std::int64_t next = 0;
  for (const SplitSlice& s : plan) {
    CHECK(s.begin == next);
    CHECK(s.end >= s.begin);
    next = s.end;
    Shape want = out;
    if (out.ndim > 0) want[0] = s.end - s.begin;
    CHECK(s.shape == want);
  }
  CHECK(next == (out.ndim == 0 ? 1 : out[0]));
}
}  // namespace

TEST_CASE("split plan: rows shared out evenly, remainder to the first slices", "[split]") {
  const Shape out{10, 3};
  auto plan = plan_split(out, {Shape{10, 3}}, {0, 1, 2});
  REQUIRE(plan.size() == 3);
  check_cover(plan, out);
  CHECK(plan[0].begin == 0);
  CHECK(plan[0].end == 4);
  CHECK(plan[1].end == 7);
  CHECK(plan[2].end == 10);
  for (int j = 0; j < 3; ++j) {
    CHECK(plan[j].device == j);
    CHECK(plan[j].inputs[0].kind == InputCut::Rows);
    CHECK(plan[j].inputs[0].begin == plan[j].begin);
    CHECK(plan[j].inputs[0].end == plan[j].end);
  }
  // Even: 2^30 elements over 2 devices.
  auto even = plan_split(Shape{1 << 30}, {Shape{1 << 30}, Shape{1 << 30}}, {0, 1});
  REQUIRE(even.size() == 2);
  CHECK(even[0].end == (1 << 29));
  CHECK(even[1].shape[0] == (1 << 29));
}

TEST_CASE("split plan: broadcast inputs go whole, scalars by value", "[split]") {
  const Shape out{6, 4, 5};
  std::vector<std::optional<Shape>> in = {Shape{6, 4, 5}, Shape{1, 4, 5}, Shape{4, 5}, Shape{5}, Shape{6, 1, 1},
                                          std::nullopt, Shape{}};
  auto plan = plan_split(out, in, {3, 3});  // one GPU listed twice: two slices on it
  REQUIRE(plan.size() == 2);
  check_cover(plan, out);
  for (const SplitSlice& s : plan) {
    CHECK(s.device == 3);
    CHECK(s.inputs[0].kind == InputCut::Rows);
    CHECK(s.inputs[1].kind == InputCut::Whole);
    CHECK(s.inputs[2].kind == InputCut::Whole);
    CHECK(s.inputs[3].kind == InputCut::Whole);
    CHECK(s.inputs[4].kind == InputCut::Rows);
    CHECK(s.inputs[5].kind == InputCut::Value);
    CHECK(s.inputs[6].kind == InputCut::Whole);  // a 0-d device array
  }
  CHECK(plan[1].inputs[4].begin == 3);
}

TEST_CASE("split plan: fewer rows than devices, one row, empty and 0-d outputs", "[split]") {
  auto few = plan_split(Shape{2, 7}, {Shape{2, 7}}, {0, 1, 2, 3});
  REQUIRE(few.size() == 2);  // the last two devices get nothing
  check_cover(few, Shape{2, 7});
  CHECK(few[1].device == 1);
  CHECK(few[1].shape == Shape{1, 7});

  auto one = plan_split(Shape{1, 1000}, {Shape{1, 1000}}, {0, 1});
  REQUIRE(one.size() == 1);
  CHECK(one[0].device == 0);
  CHECK(one[0].inputs[0].kind == InputCut::Whole);
  check_cover(one, Shape{1, 1000});

  auto empty = plan_split(Shape{0, 4}, {Shape{0, 4}, Shape{4}}, {1, 0});
  REQUIRE(empty.size() == 1);
  CHECK(empty[0].device == 1);
  CHECK(empty[0].shape == Shape{0, 4});
  check_cover(empty, Shape{0, 4});

  auto scalar = plan_split(Shape{}, {std::nullopt}, {0, 1});
  REQUIRE(scalar.size() == 1);
  CHECK(scalar[0].shape == Shape{});
  CHECK(scalar[0].inputs[0].kind == InputCut::Value);

  // An empty inner dimension still splits the rows.
  auto hollow = plan_split(Shape{4, 0}, {Shape{4, 0}}, {0, 1});
  REQUIRE(hollow.size() == 2);
  check_cover(hollow, Shape{4, 0});
}

TEST_CASE("split plan: no devices is a usage error", "[split]") {
  try {
    plan_split(Shape{4}, {}, {});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Usage);
    CHECK(std::string(e.what()) == "a split job needs at least one CUDA device");
  }
}

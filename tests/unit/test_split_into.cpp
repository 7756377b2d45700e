// evaluate_split_into's checks of caller-owned outputs (cujit/multi_gpu.hpp),
// which all run before a GPU is touched: here the pieces are host arrays or
// views of made-up device addresses, so every refusal is tested without a
// GPU. What the call writes is tested in tests/gpu/test_multi_gpu.cpp.
#include "catch.hpp"

#include <cstdint>
#include <string>
#include <vector>

#include "plan/split_plan.hpp"
#include "cujit/multi_gpu.hpp"
#include "error_of.hpp"

using namespace cujit;
using cujit::test::error_of;

namespace {

// Outputs cut as the job over `devices` cuts them, each piece a host array:
// they pass every check up to where a piece must be in its GPU's memory.
SplitArray host_split(const std::string& name, DType t, const Shape& shape, const std::vector<int>& devices) {
  SplitArray s{name, t, shape, {}};
  for (const SplitSlice& sl : plan_split(shape, {}, devices))
    s.pieces.push_back(ArrayPiece{sl.device, sl.begin, sl.end, Array(HostArray(t, sl.shape))});
  return s;
}

std::string refusal(const std::string& program, const std::vector<SplitArray>& outs, const EvaluateOptions& opt = {}) {
  HostArray x(DType::Float32, Shape{10, 3}), y(DType::Float32, Shape{3});
  return error_of([&] { evaluate_split_into(program, {{"x", x}, {"y", y}}, {}, outs, opt); }, ErrorCode::Usage);
}

}  // namespace

TEST_CASE("evaluate_split_into: outputs that do not match the program", "[split]") {
  const Shape shape{10, 3};
  CHECK(refusal("out = x*y", {}) ==
        "evaluate_split_into: no outputs were given; the first output's pieces say which GPUs run the job: pass "
        "outputs made by split_empty(dtype, shape, devices) or an earlier evaluate_split");
  CHECK(refusal("out = x*y", {SplitArray{"out", DType::Float32, shape, {}}}) ==
        "evaluate_split_into: output 'out' has no pieces; the first output's pieces say which GPUs run the job: pass "
        "outputs made by split_empty(dtype, shape, devices) or an earlier evaluate_split");
  const SplitArray out = host_split("out", DType::Float32, shape, {0, 0});
  CHECK(refusal("out = x*y + 5; m = x > y", {out}) ==
        "evaluate_split_into: the program makes 2 output(s) ('out', 'm'), but 1 were given; pass one SplitArray per "
        "output, in that order");
  const SplitArray m = host_split("m", DType::Bool, shape, {0, 0});
  CHECK(refusal("out = x*y + 5; m = x > y", {m, out}) ==
        "evaluate_split_into: output 0 is named 'm', but the program's output 0 is 'out'; pass the outputs in the "
        "program's order ('out', 'm'), or leave the name empty");
  CHECK(refusal("out = x*y", {host_split("out", DType::Float64, shape, {0, 0})}) ==
        "evaluate_split_into: output 'out' is float64 of shape (10, 3), but the program makes float32 of shape (10, 3); "
        "make it with split_empty(float32, (10, 3), devices)");
  CHECK(refusal("out = x*y", {host_split("", DType::Float32, Shape{3}, {0, 0})}) ==
        "evaluate_split_into: output 'out' is float32 of shape (3,), but the program makes float32 of shape (10, 3); "
        "make it with split_empty(float32, (10, 3), devices)");
  CHECK(refusal("out = x*y", {out}, [] {
          EvaluateOptions o;
          o.device = Device::cuda(0);
          return o;
        }()) == "evaluate_split_into: the devices are where its outputs' pieces are; leave EvaluateOptions::device unset");
  CHECK(refusal("x *= y", {out}) ==
        "evaluate_split_into: the program updates input 'x' in place, which a run split over GPUs does not do yet; run "
        "it on one device (evaluate(), jitrun --device N)");
  // Reductions run split now: the piece check comes next (these are host arrays).
  CHECK(refusal("out = x / sum(x*y)", {out}) ==
        "evaluate_split_into: output 'out': the piece of rows [0, 5) must be float32 of shape (5, 3) on GPU 0, but it "
        "is float32 of shape (5, 3) in host memory; make the outputs with split_empty");
  CHECK(refusal("out = x - nanargmax(x)", {out}) ==
        "evaluate_split_into: `nanargmax(x)`: a split run does not combine this reduction's per-GPU partials in a "
        "program that reduces over the split axis (it combines every reduction of real values but nanargmin and "
        "nanargmax); run it on one GPU (evaluate(), jitrun --device N)");
  CHECK(refusal("out = x / sum(x)", {out}, [] {
          EvaluateOptions o;
          o.shape = Shape{10, 3};
          return o;
        }()) == "evaluate_split_into: a program with reductions takes no output shape in a split run "
                "(EvaluateOptions::shape, jitrun --shape); leave it unset, or run it on one GPU (evaluate(), jitrun "
                "--device N)");
  // An output a reduction leaves without the split axis is one piece, on the first GPU.
  const SplitArray s_cut = host_split("s", DType::Float32, Shape{3}, {0, 0});
  CHECK(refusal("s = sum(x, axis=0); out = x*y", {s_cut, out}) ==
        "evaluate_split_into: output 's' is cut as [0, 2) on GPU 0, [2, 3) on GPU 0, but the job cuts it as [0, 3) on "
        "GPU 0 (its shape has no split axis: it comes whole from the first GPU); make every output with "
        "split_empty(dtype, shape, {0})");
  const SplitArray s_whole = host_split("s", DType::Float32, Shape{3}, {1});
  CHECK(refusal("s = sum(x, axis=0); out = x*y", {s_whole, host_split("out", DType::Float32, shape, {1, 0})}) ==
        "evaluate_split_into: output 's': the piece of rows [0, 3) must be float32 of shape (3,) on GPU 1, but it is "
        "float32 of shape (3,) in host memory; make the outputs with split_empty");
}

TEST_CASE("evaluate_split_into: pieces cut otherwise than the job cuts them", "[split]") {
  const Shape shape{10, 3};
  SplitArray out = host_split("out", DType::Float32, shape, {0, 0});
  out.pieces[0].end = 4;
  out.pieces[1].begin = 4;
  CHECK(refusal("out = x*y", {out}) ==
        "evaluate_split_into: output 'out' is cut as [0, 4) on GPU 0, [4, 10) on GPU 0, but the job cuts it as [0, 5) "
        "on GPU 0, [5, 10) on GPU 0 (over GPUs {0,0}, where output 'out' has its pieces); make every output with "
        "split_empty(dtype, shape, {0,0})");
  // The first output's pieces give the device list; the second disagrees.
  const SplitArray a = host_split("out", DType::Float32, shape, {1, 0});
  const SplitArray m = host_split("m", DType::Bool, shape, {0, 1, 0});
  CHECK(refusal("out = x*y + 5; m = x > y", {a, m}) ==
        "evaluate_split_into: output 'm' is cut as [0, 4) on GPU 0, [4, 7) on GPU 1, [7, 10) on GPU 0, but the job "
        "cuts it as [0, 5) on GPU 1, [5, 10) on GPU 0 (over GPUs {1,0}, where output 'out' has its pieces); make every "
        "output with split_empty(dtype, shape, {1,0})");
  // Position-dependent programs are not split: one piece on the first GPU.
  CHECK(refusal("out = x * i", {host_split("out", DType::Float64, shape, {1, 0})}) ==
        "evaluate_split_into: output 'out' is cut as [0, 5) on GPU 1, [5, 10) on GPU 0, but the job cuts it as [0, 10) "
        "on GPU 1 (the program is not split: it uses `i` or `n`, or indexes an input, so it runs whole on one GPU); "
        "make every output with split_empty(dtype, shape, {1})");
  // A 1-row output is one piece, as split_empty over any list makes it.
  HostArray row(DType::Float32, Shape{1, 3});
  SplitArray two_rows{"out", DType::Float32, Shape{1, 3}, {}};
  two_rows.pieces = {ArrayPiece{0, 0, 1, Array(HostArray(DType::Float32, Shape{1, 3}))},
                     ArrayPiece{1, 1, 1, Array(HostArray(DType::Float32, Shape{0, 3}))}};
  CHECK(error_of([&] { evaluate_split_into("out = x + 1", {{"x", row}}, {}, {two_rows}); }, ErrorCode::Usage) ==
        "evaluate_split_into: output 'out' is cut as [0, 1) on GPU 0, [1, 1) on GPU 1, but the job cuts it as [0, 1) "
        "on GPU 0 (over GPUs {0,1}, where output 'out' has its pieces); make every output with "
        "split_empty(dtype, shape, {0,1})");
}

TEST_CASE("evaluate_split_into: a piece that is not its GPU's array of the slice's shape", "[split]") {
  const Shape shape{10, 3};
  // Cut right, but in host memory (what every piece here is).
  CHECK(refusal("out = x*y", {host_split("out", DType::Float32, shape, {0, 0})}) ==
        "evaluate_split_into: output 'out': the piece of rows [0, 5) must be float32 of shape (5, 3) on GPU 0, "
        "but it is float32 of shape (5, 3) in host memory; make the outputs with split_empty");
  SplitArray missing = host_split("out", DType::Float32, shape, {0, 0});
  missing.pieces[0].array = Array();
  CHECK(refusal("out = x*y", {missing}) ==
        "evaluate_split_into: output 'out': the piece of rows [0, 5) must be float32 of shape (5, 3) on GPU 0, "
        "but it is no array; make the outputs with split_empty");
  SplitArray wrong = host_split("out", DType::Float32, shape, {0, 0});
  wrong.pieces[0].array = Array(HostArray(DType::Int32, Shape{15}));
  CHECK(refusal("out = x*y", {wrong}) ==
        "evaluate_split_into: output 'out': the piece of rows [0, 5) must be float32 of shape (5, 3) on GPU 0, "
        "but it is int32 of shape (15,) in host memory; make the outputs with split_empty");
}

TEST_CASE("split aliasing: an output piece shares no byte with another or with an input", "[split]") {
  // Made-up device addresses: the check compares byte ranges, it reads nothing.
  auto at = [](std::uintptr_t address, const Shape& shape, int device = 0) {
    return ArrayView::cuda(reinterpret_cast<const void*>(address), DType::Float32, shape, device);
  };
  const std::vector<SplitOperand> outs = {{"output 'out' (rows [0, 4) on GPU 0)", at(0x10000, Shape{4, 4})},
                                          {"output 'out' (rows [4, 8) on GPU 1)", at(0x10000, Shape{4, 4}, 1)}};
  // The same addresses on two GPUs, adjacent ranges, empty views: apart.
  CHECK_NOTHROW(check_split_aliasing(outs, {{"input 'x'", at(0x10040, Shape{4})}, {"input 'y'", at(0x0fff0, Shape{4})},
                                            {"input 'z'", at(0x10000, Shape{0, 4})}}));
  CHECK(error_of([&] { check_split_aliasing(outs, {{"input 'x'", at(0x1003c, Shape{4})}}); }, ErrorCode::Usage) ==
        "evaluate_split_into: output 'out' (rows [0, 4) on GPU 0) shares memory with input 'x', which the slices still "
        "read; write to arrays no input uses (split_empty), or update in place on one device with evaluate()");
  // Exactly the same view (in place, element for element) is refused too: a
  // broadcast or distributed input is read by other slices meanwhile.
  CHECK(error_of([&] { check_split_aliasing(outs, {{"input 'x' (its piece of rows [4, 8) on GPU 1)", at(0x10000, Shape{4, 4}, 1)}}); },
                 ErrorCode::Usage) ==
        "evaluate_split_into: output 'out' (rows [4, 8) on GPU 1) shares memory with input 'x' (its piece of rows "
        "[4, 8) on GPU 1), which the slices still read; write to arrays no input uses (split_empty), or update in "
        "place on one device with evaluate()");
  // A reversed view reaches below its pointer.
  ArrayView reversed = at(0x10044, Shape{4});  // bytes [0x10038, 0x10048)
  reversed.strides[0] = -4;
  CHECK(error_of([&] { check_split_aliasing(outs, {{"input 'r'", reversed}}); }, ErrorCode::Usage).find("input 'r'") !=
        std::string::npos);
  ArrayView above = reversed;
  above.data = reinterpret_cast<void*>(0x1004c);  // bytes [0x10040, 0x10050): just above
  CHECK_NOTHROW(check_split_aliasing({outs[0]}, {{"input 'r'", above}}));
  CHECK(error_of([&] { check_split_aliasing({outs[0], {"output 'm' (rows [0, 4) on GPU 0)", at(0x10020, Shape{2})}}, {}); },
                 ErrorCode::Usage) ==
        "evaluate_split_into: output 'out' (rows [0, 4) on GPU 0) and output 'm' (rows [0, 4) on GPU 0) share memory; "
        "give every piece of every output its own array (split_empty)");
}

// The reduction kernels' plans and sources, without a GPU: the plan is a pure
// function of the shape (the determinism rule), every variant renders and
// compiles with NVRTC for sm_90 for each operation and dtype family.
#include <string>
#include <vector>

#include "catch.hpp"
#include "cujit/error.hpp"
#include "gpu/compile.hpp"
#include "gpu/reduce_launch.hpp"

using namespace cujit;

namespace {

ReduceSpec spec_of(ReduceOp op, DType in, DType value, DType out, std::string map = "") {
  ReduceSpec s;
  s.inputs = {{"x", in}};
  s.map = std::move(map);
  s.op = op;
  s.value = value;
  s.out = out;
  return s;
}

void compiles(const std::string& source, const std::string& what) {
  INFO(what);
  CompiledKernel k = compile_cuda(source, "reduce_test", CompileOptions{90, false, {}});
  CHECK(!k.cubin.empty());
}

}  // namespace

TEST_CASE("reduction plans: variants by shape", "[reduce]") {
  const ReduceSpec f32 = spec_of(ReduceOp::Sum, DType::Float32, DType::Float32, DType::Float32);
  // A whole reduction of 2^20 float32: one row, cut into 256 chunks of one block step.
  ReducePlan p = reduce_plan(f32, {1, 1 << 20, 1});
  CHECK(p.key() == "rows t256 v4 c4096x256 items256");
  // 2^30: chunks of 16 block steps, so a float sum adds at most 16 terms in sequence per accumulator.
  CHECK(reduce_plan(f32, {1, 1LL << 30, 1}).key() == "rows t256 v4 c65536x16384 items16384");
  // Rows of one vector per lane, many of them: four row sets per block step.
  CHECK(reduce_plan(f32, {1 << 24, 4, 1}).key() == "group t256 v4 g1 r4 items16384");
  CHECK(reduce_plan(f32, {1 << 20, 64, 1}).key() == "group t256 v4 g16 r4 items16384");
  CHECK(reduce_plan(f32, {1000, 64, 1}).key() == "group t256 v4 g16 items63");
  CHECK(reduce_plan(f32, {1 << 16, 1024, 1}).key() == "group t256 v4 g32 items8192");
  CHECK(reduce_plan(f32, {1 << 10, 1 << 16, 1}).key() == "rows t256 v4 c65536x1 items1024");
  CHECK(reduce_plan(f32, {1, 1 << 24, 4}).key() == "cols t1x256 v4 k16384x1024 items1024");
  // Up to 32 MiB read, half the chunks (256): the small reductions are latency's.
  CHECK(reduce_plan(f32, {1, 1 << 23, 1}).key() == "rows t256 v4 c32768x256 items256");
  CHECK(reduce_plan(f32, {1, 1 << 24, 1}).key() == "rows t256 v4 c32768x512 items512");
  ReduceSpec dot32 = spec_of(ReduceOp::Sum, DType::Float32, DType::Float32, DType::Float32, "x * y");
  dot32.inputs.push_back({"y", DType::Float32});
  CHECK(reduce_plan(dot32, {1, 1 << 22, 1}).key() == "rows t256 v4 c16384x256 items256");
  CHECK(reduce_plan(dot32, {1, 1 << 23, 1}).key() == "rows t256 v4 c16384x512 items512");
  const ReduceSpec max64 = spec_of(ReduceOp::Max, DType::Float64, DType::Float64, DType::Float64);
  CHECK(reduce_plan(max64, {1, 1 << 20, 1}).key() == "rows t256 v2 c4096x256 items256");
  // A step's loads before its folds only in chunks of 8 steps or more.
  CHECK(reduce_plan(f32, {1, 1 << 20, 1}).source_key() == "rows t256 v4x4 fold-as-loaded");
  CHECK(reduce_plan(f32, {1, 1 << 26, 1}).source_key() == "rows t256 v4x4");
  // argmax along rows: one (value, vector) slot per unrolled vector, two of
  // them for values of 4 bytes or less, four for 8; half the chunks up to 32 MiB.
  const ReduceSpec amax = spec_of(ReduceOp::ArgMax, DType::Float32, DType::Float32, DType::Int64);
  CHECK(reduce_plan(amax, {1, 1 << 20, 1}).key() == "rows t256 v4 slots c4096x256 items256");
  CHECK(reduce_plan(amax, {1, 1 << 20, 1}).source_key() == "rows t256 v4x2 slots i32 fold-as-loaded");
  CHECK(reduce_plan(amax, {1, 1 << 23, 1}).key() == "rows t256 v4 slots c32768x256 items256");
  CHECK(reduce_plan(amax, {1, 1 << 24, 1}).key() == "rows t256 v4 slots c32768x512 items512");
  CHECK(reduce_plan(amax, {1, 1 << 28, 1}).key() == "rows t256 v4 slots c262144x1024 items1024");
  // Past 16 MiB read, a step loads 4 vectors into the 2 slots in turn.
  CHECK(reduce_plan(amax, {1, 1 << 22, 1}).source_key() == "rows t256 v4x2 slots i32");
  CHECK(reduce_plan(amax, {1, 1 << 24, 1}).source_key() == "rows t256 v4x4 a2 slots i32");
  CHECK(reduce_plan(amax, {1, 1LL << 31, 1}).source_key() == "rows t256 v4x4 a2 slots");
  const ReduceSpec amax64 = spec_of(ReduceOp::ArgMax, DType::Float64, DType::Float64, DType::Int64);
  CHECK(reduce_plan(amax64, {1, 1 << 20, 1}).key() == "rows t256 v2 slots c4096x256 items256");
  CHECK(reduce_plan(amax64, {1, 1 << 28, 1}).key() == "rows t256 v2 slots c131072x2048 items2048");
  CHECK(reduce_plan(amax64, {1, 1 << 28, 1}).source_key() == "rows t256 v2x4 slots");
  // Few rows of many columns: one thread walks every row of its columns.
  CHECK(reduce_plan(f32, {1, 4, 1 << 24}).key() == "cols t256x1 v4 k4x1 items16384");
  // An axis of length 1: the flat copy variant, outer rows folded into the columns.
  CHECK(reduce_plan(f32, {7, 1, 4099}).key() == "cols t256x1 v4 flat k1x1 items29");
  CHECK(reduce_plan(f32, {7, 1, 4099}).source_key() == "cols t256x1 v4x4 flat");
  CHECK(reduce_plan(f32, {1, 64, 1 << 20}).key() == "cols t64x4 v4 k64x1 items4096");
  CHECK(reduce_plan(f32, {1, 1 << 13, 1 << 13}).key() == "cols t32x8 v4 k512x16 items1024");
  // Rows (or rows of columns) shorter than a vector: vectors as long as they are,
  // not the element-at-a-time tail (float16's vectors hold 8).
  const ReduceSpec f16 = spec_of(ReduceOp::Sum, DType::Float16, DType::Float32, DType::Float16);
  CHECK(reduce_plan(f16, {1 << 24, 4, 1}).key() == "group t256 v4 g1 r4 items16384");
  CHECK(reduce_plan(f16, {1, 1 << 24, 4}).key() == "cols t1x256 v4 k16384x1024 items1024");
  CHECK(reduce_plan(f16, {1 << 24, 3, 1}).vec == 2);
  CHECK(reduce_plan(f16, {1 << 20, 64, 1}).vec == 8);
  // The plan needs no device: it is the same on every GPU.
  CHECK(reduce_plan(f32, {3, 1000003, 1}).key() == reduce_plan(f32, {3, 1000003, 1}).key());
}

TEST_CASE("reduction plans: empty reductions", "[reduce]") {
  const ReduceSpec mx = spec_of(ReduceOp::Max, DType::Float32, DType::Float32, DType::Float32);
  try {
    (void)reduce_plan(mx, {4, 0, 1});
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Usage);
    CHECK(std::string(e.what()) ==
          "zero-size array to reduction operation max which has no identity; give it a non-empty axis");
  }
  const ReduceSpec sum = spec_of(ReduceOp::Sum, DType::Float32, DType::Float32, DType::Float32);
  CHECK(reduce_plan(sum, {4, 0, 1}).variant == ReducePlan::Variant::Group);
}

TEST_CASE("reduction kernels compile in every variant", "[reduce][nvrtc]") {
  struct Case {
    ReduceSpec spec;
    const char* what;
  };
  std::vector<Case> cases = {
      {spec_of(ReduceOp::Sum, DType::Float32, DType::Float32, DType::Float32), "sum f32"},
      {spec_of(ReduceOp::Max, DType::Float16, DType::Float16, DType::Float16), "max f16"},
      {spec_of(ReduceOp::ArgMax, DType::Float64, DType::Float64, DType::Int64), "argmax f64"},
      {spec_of(ReduceOp::Sum, DType::Int32, DType::Int64, DType::Int64), "sum i32->i64"},
      {spec_of(ReduceOp::Any, DType::Bool, DType::Bool, DType::Bool), "any bool"},
      {spec_of(ReduceOp::Std, DType::BFloat16, DType::Float32, DType::BFloat16), "std bf16"},
      // An integer dtype=: summed in int8, divided in float64 (not by n as an int8).
      {spec_of(ReduceOp::Mean, DType::Int16, DType::Int8, DType::Int8), "mean i16 dtype=int8"},
      // nanprod of floats into an integer dtype=: NaN replaced before the conversion (api/reduce_call.cpp).
      {spec_of(ReduceOp::Prod, DType::Float32, DType::Int32, DType::Int32, "(cj_val)cj::red::nan_to((double)(x), 1.0)"),
       "nanprod f32 dtype=int32"},
  };
  ReduceSpec dot = spec_of(ReduceOp::Sum, DType::Float32, DType::Float32, DType::Float32, "x * y");
  dot.inputs.push_back({"y", DType::Float32});
  cases.push_back({dot, "sum(x*y)"});
  const ReduceShape shapes[] = {{1, 1 << 20, 1}, {1 << 16, 64, 1}, {4, 1 << 10, 1 << 10}};
  int k = 0;
  for (const Case& c : cases) {
    // Each case in one variant (and the dot product in all three), to keep NVRTC's time small.
    for (int s = 0; s < 3; ++s) {
      if (s != k % 3 && c.spec.inputs.size() == 1) continue;
      const ReducePlan p = reduce_plan(c.spec, shapes[s]);
      compiles(ReduceKernels::source(c.spec, p, (k + s) % 2 == 0), std::string(c.what) + " " + p.key());
    }
    ++k;
  }
  // An axis of length 1 (the columns kernel's flat copy), with argmax's index and var's post-map.
  for (const Case& c : {cases[2], cases[5]}) {
    const ReducePlan p = reduce_plan(c.spec, {7, 1, 4099});
    compiles(ReduceKernels::source(c.spec, p, true), std::string(c.what) + " " + p.key());
  }
  // float16 with a map that sees NaN bits (the per-vector NaN test after a
  // step's loads) in every variant: rows, group row sets, columns.
  ReduceSpec dot16 = spec_of(ReduceOp::Sum, DType::Float16, DType::Float32, DType::Float32, "x * y");
  dot16.inputs.push_back({"y", DType::Float16});
  // (Rows both ways: 2^20 folds as it loads, 2^26 loads a step first.)
  for (const ReduceShape& sh : {ReduceShape{1, 1 << 20, 1}, ReduceShape{1, 1 << 26, 1}, ReduceShape{1 << 20, 64, 1},
                                ReduceShape{4, 1 << 10, 1 << 10}}) {
    const ReducePlan p = reduce_plan(dot16, sh);
    compiles(ReduceKernels::source(dot16, p, true), "sum(x*y) f16 " + p.key());
  }
  // argmax with more vectors a step than slots (reduce_plan: past 16 MiB).
  const ReduceSpec amax = spec_of(ReduceOp::ArgMax, DType::Float32, DType::Float32, DType::Int64);
  const ReducePlan pa = reduce_plan(amax, {1, 1 << 26, 1});
  CHECK(pa.source_key() == "rows t256 v4x4 a2 slots i32");
  compiles(ReduceKernels::source(amax, pa, true), "argmax f32 " + pa.key());
  RowNormSpec rn;
  rn.inputs = {{"x", DType::Float32}};
  compiles(ReduceKernels::source(rn, 4, 4, true), "rownorm f32");
  compiles(ReduceKernels::source(rn, 4, 4, true, true), "rownorm f32, whole rows");
  rn.inputs = {{"x", DType::Float16}};
  rn.out = DType::Float16;
  compiles(ReduceKernels::source(rn, 8, 2, false), "rownorm f16");
}

TEST_CASE("the columns kernel loads a step first for 16-bit floats only", "[reduce]") {
  const ReduceShape sh{1, 1 << 13, 1 << 13};
  const ReduceSpec f16 = spec_of(ReduceOp::Sum, DType::Float16, DType::Float32, DType::Float16);
  const ReduceSpec bf16 = spec_of(ReduceOp::Sum, DType::BFloat16, DType::Float32, DType::BFloat16);
  const ReduceSpec f32 = spec_of(ReduceOp::Sum, DType::Float32, DType::Float32, DType::Float32);
  const ReduceSpec i16 = spec_of(ReduceOp::Sum, DType::Int16, DType::Int64, DType::Int64);
  auto loads_first = [&](const ReduceSpec& s) {
    return ReduceKernels::source(s, reduce_plan(s, sh), true).find("LOADS_FIRST = 1") != std::string::npos;
  };
  CHECK(loads_first(f16));
  CHECK(loads_first(bf16));
  CHECK_FALSE(loads_first(f32));
  CHECK_FALSE(loads_first(i16));
}

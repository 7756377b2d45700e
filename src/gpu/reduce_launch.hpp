// The reduction kernels (templates/kernel_reduce_*.cu, templates/reduce.cuh):
// what to reduce, how a shape is cut into blocks, and the launch.
//
// The planner (src/plan/) sees a reduction as
//   out[a, b] = post( op over k of map(inputs[a, k, b]) )
// on contiguous inputs collapsed to [outer, len, inner] (adjacent reduced axes
// merged, as adjacent kept ones); a full reduction is [1, n, 1]. It fills a
// ReduceSpec (the map as a CUDA expression over the inputs' names, as in
// CuPy's ReductionKernel), asks reduce_plan() for the launch, and calls
// ReduceKernels::launch(). A row that fits on chip, reduced and then mapped
// elementwise (the (x - mean) / std of a normalisation), is one pass:
// RowNormSpec and ReduceKernels::normalize_rows().
//
// Determinism: the plan is a function of the shape, the dtypes and the
// operation only (never of the device or the pointers), and the kernels
// combine in a fixed tree for a plan; the grid may be any size (blocks stride
// over fixed pieces of work). So a reduction gives the same bits on every run,
// on every GPU, aligned or not. There are no floating-point atomics: long
// reductions store per-block partials, and the last block to finish (an
// integer counter) combines them in index order within the same launch.
#pragma once
#include <cuda.h>

#include <cstddef>
#include <map>
#include <mutex>
#include <string>
#include <vector>

#include "cujit/dtype.hpp"
#include "core/driver.hpp"

namespace cujit {

enum class ReduceOp { Sum, Prod, Min, Max, ArgMin, ArgMax, Any, All, Mean, Var, Std };

struct ReduceInput {
  std::string name;  // its name in `map`
  DType dtype;       // its elements' type in memory
};

struct ReduceSpec {
  std::vector<ReduceInput> inputs;  // 1 to 8, each [outer, len, inner] contiguous
  // CUDA expression over the inputs' names (each in its compute type: float
  // for float16/bfloat16); "" takes the first input as it is.
  std::string map;
  // Template text the map calls (gpu/codegen.hpp's fused_map), after the
  // kernels' own helpers.
  std::string helpers;
  ReduceOp op = ReduceOp::Sum;
  // The type the map's value is converted to and accumulated in (Float16 and
  // BFloat16 mean float: NumPy's float16 sums accumulate in float32 too).
  DType value = DType::Float32;
  DType out = DType::Float32;  // the result's type in memory
  // CUDA expression over `r` (the operation's result: the value, or for
  // argmin/argmax the index `r.i`, for var/std the Welford state r.n, r.mean,
  // r.m2) and `n` (the reduced length); "" gives the operation's own result
  // (mean: r / n; var: r.m2 / (r.n - ddof); std: its sqrt).
  std::string post;
  double ddof = 0;  // var, std (NumPy takes any number)
};

// A contiguous [outer, len, inner] array reduced over `len` into [outer, inner].
struct ReduceShape {
  long long outer = 1, len = 1, inner = 1;
};

struct ReducePlan {
  // Group: GROUP lanes per short contiguous row. Rows: blocks per chunk of
  // longer rows (and of a whole reduction). Cols: columns per thread, walking
  // the reduced axis (inner > 1).
  enum class Variant { Group, Rows, Cols } variant = Variant::Rows;
  int threads = 256;
  int vec = 1;           // logical vector: 16 bytes of the widest input
  int unroll = 4;        // accumulator rows per thread: at most 128 bytes of accumulators
  int group = 1;         // Group: lanes per row
  int rows_per = 1;      // Group: row sets per block step (>1 only where a row is at most one vector per lane)
  int slots = 0;         // Rows: accumulators per vector: 0 for one per lane, 1 for argmin/argmax (a vector's best, found again at the end)
  bool index32 = false;  // argmin/argmax: the index in 32 bits (the reduced axis is shorter than 2^31 - 1)
  bool loads_first = true;  // Rows: a step's U loads before its first fold (not for chunks of few steps)
  int acc_rows = 0;      // Rows: accumulator rows that a step's `unroll` vectors go round (0: unroll)
  int tx = 1, ty = 1;    // Cols: block shape
  bool flat = false;     // Cols: an axis of length 1 (one element per output: a copy through the map)
  long long chunk = 0;   // Rows: elements of a row per block; Cols: k per split
  int splits = 1;        // Rows: chunks per row; Cols: splits of the reduced axis
  long long items = 0;   // pieces of work (blocks the grid strides over)
  std::size_t partial_count = 0;  // accumulators the workspace must hold
  std::size_t counters = 0;       // counters the workspace must hold
  std::string key() const;        // "rows t256 v4 c4096x256 items256", for logs and tests
  // What the kernel's source depends on ("rows t256 v4"): the other fields
  // are launch arguments, so one compiled kernel serves every shape.
  std::string source_key() const;
};

// The plan for `shape`: a pure function of its arguments. fail(Usage) for an
// empty min/max/argmin/argmax (NumPy's "zero-size array ... no identity").
ReducePlan reduce_plan(const ReduceSpec& spec, const ReduceShape& shape);

// Scratch of the kernels that split a reduction over blocks: the partials and
// the arrival counters, which are zero between launches (the last block resets
// its counter). One workspace serves one stream at a time.
class ReduceWorkspace {
 public:
  explicit ReduceWorkspace(int device) : device_(device) {}
  // Waits for the device before its buffers go back to the pool (see reserve).
  ~ReduceWorkspace();
  ReduceWorkspace(const ReduceWorkspace&) = delete;
  ReduceWorkspace& operator=(const ReduceWorkspace&) = delete;
  int device() const { return device_; }
  // Grows the buffers to hold `partial_bytes` and `counters` (synchronously,
  // counters zeroed), after the device is done with the old ones.
  void reserve(std::size_t partial_bytes, std::size_t counters);
  CUdeviceptr partials() const { return partials_.ptr(); }
  CUdeviceptr counters() const { return counters_.ptr(); }

 private:
  int device_;
  DeviceBuffer partials_, counters_;
};

// Row normalisation in one pass: out[r, j] = epilogue(x = map(inputs[r, j]),
// mean, var, std of row r's mapped values, var with `ddof`). Rows up to
// 8 * 256 * vec elements (8192 float32).
struct RowNormSpec {
  std::vector<ReduceInput> inputs;
  std::string map;       // as ReduceSpec::map
  DType value = DType::Float32;
  DType out = DType::Float32;
  std::string epilogue;  // CUDA expression over x, mean, var, std; "(x - mean) / std"
  std::string helpers;   // template text the epilogue calls (as ReduceSpec::helpers)
  int ddof = 0;
};

// Compiles (NVRTC, once per source and device in this process), plans and
// launches the reduction kernels. Thread-safe.
class ReduceKernels {
 public:
  // Launches `spec` over `shape`: `inputs[i]` points to input i's first
  // element, `out` to outer*inner results (contiguous), on `stream`. `forced`
  // replaces the plan (tests and benchmarks); `grid` > 0 replaces the grid
  // size (the result must not change: tests check that).
  void launch(int device, const ReduceSpec& spec, const ReduceShape& shape, const CUdeviceptr* inputs,
              CUdeviceptr out, ReduceWorkspace& ws, CUstream stream = nullptr, const ReducePlan* forced = nullptr,
              unsigned grid = 0);
  void normalize_rows(int device, const RowNormSpec& spec, long long rows, long long len, const CUdeviceptr* inputs,
                      CUdeviceptr out, CUstream stream = nullptr, unsigned grid = 0);
  // The kernel launch() (normalize_rows()) compiles for these arguments, found
  // without a GPU (precompiling, jitrun --emit): its symbol, its shape of
  // code ("rows t256 v4x4 vector loads") and its source; an empty name where
  // nothing is launched (no elements). The same decisions as the launch's.
  struct Kernel {
    std::string name, what, source;
  };
  static Kernel kernel(const ReduceSpec& spec, const ReduceShape& shape, const CUdeviceptr* inputs);
  static Kernel kernel(const RowNormSpec& spec, long long rows, long long len, const CUdeviceptr* inputs,
                       CUdeviceptr out);
  // The CUDA source of a plan (jitrun --emit, tests).
  static std::string source(const ReduceSpec& spec, const ReducePlan& plan, bool vector_loads);
  static std::string source(const RowNormSpec& spec, int vec, int items, bool vector_loads, bool full = false);

 private:
  // The kernel for `what` (every input of its source: spec, plan, loads),
  // rendered by `render` and compiled on first use only: a launch costs a
  // short key and a map lookup, not a render.
  template <class Render>
  CUfunction function(int device, const std::string& what, const char* name, Render&& render);
  std::mutex mu_;
  std::map<std::string, CUfunction> functions_;  // by device, arch and `what`
};

}  // namespace cujit

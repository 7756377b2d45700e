// The CPU evaluator: runs a checked program over host arrays with NumPy's
// semantics. It is the reference for every GPU test and the engine behind
// `jitrun --device cpu`.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lang/check.hpp"
#include "cujit/array.hpp"

namespace cujit {

struct Input {
  std::string name;
  ArrayView view;     // host memory
  bool weak = false;  // a 0-d int64/float64/complex128 that behaves as a literal (NEP 50)
  bool raw = false;   // indexed explicitly as name[j]; not broadcast
};

struct Output {
  std::string name;
  HostArray array;
  // An input updated in place (Var::input): the result went into that input's
  // own array, and `array` is empty.
  bool in_place = false;
};

// Parses, checks and runs `source`. The outputs are the declared ones plus the
// targets the program never reads back (see docs/language.md).
// Outputs come back in order of their first assignment.
std::vector<Output> evaluate_cpu(std::string_view source, const std::vector<Input>& inputs,
                                 const std::vector<OutputDecl>& outputs = {});

struct CpuOptions {
  int threads = 0;  // 0: cpu_threads() (thread_pool.hpp)
  // Called now and then from the calling thread with the elements done so
  // far, and once with done == total at the end (e.g. jitrun's progress line).
  // It must not throw.
  std::function<void(std::int64_t done, std::int64_t total)> progress;
};

// Runs an already checked program (the inputs in the order of its parameters).
// An input the program updates in place (`x *= 5`) is written in its own
// array, which must be host memory of the outputs' shape; nothing is written
// when a check fails (check_inout, check_overlap in plan/shapes.hpp).
// `shape`, when given, is the shape of the outputs; otherwise the broadcast
// shape of the array inputs (0-d when there is none). `outputs`, when given,
// holds one view per Program::outputs: a host array to write the output into
// (of the call's shape and the output's dtype; its Output::array is then
// empty), or a view with no data, for a new array.
// (Defined in cpu/run.cpp, which sends a program with reductions to
// cpu/reduce and any other to evaluate_elementwise.)
std::vector<Output> evaluate_program(const Program& program, const std::vector<Input>& inputs,
                                     const Shape* shape = nullptr, const CpuOptions& options = {},
                                     const ArrayView* outputs = nullptr);

// evaluate_program for a program without reductions: the typed loops over chunks.
std::vector<Output> evaluate_elementwise(const Program& program, const std::vector<Input>& inputs,
                                         const Shape* shape = nullptr, const CpuOptions& options = {},
                                         const ArrayView* outputs = nullptr);

// A program without reductions, with one output that is no input's, computed
// block by block into the caller's buffer on the calling thread: a
// reduction's map fused into the reduction's own tasks (cpu/reduce.cpp), where
// evaluate_elementwise would write the whole map to a temporary first.
class BlockEvaluator {
 public:
  // Whether `p` can run so: nothing in it can fail at run time (a failure
  // would surface in one block of many, in no defined order), one output.
  static bool applies(const Program& p);
  // `shape`: the output's; `workers`: the threads that will call run.
  BlockEvaluator(const Program& p, const std::vector<Input>& inputs, const Shape& shape, int workers);
  ~BlockEvaluator();
  BlockEvaluator(const BlockEvaluator&) = delete;
  BlockEvaluator& operator=(const BlockEvaluator&) = delete;
  // Elements [start, start + n) of the output (C order) into `out`; each
  // worker in [0, workers) on one thread at a time.
  void run(int worker, std::int64_t start, std::int64_t n, void* out);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cujit

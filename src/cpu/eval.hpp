// The CPU evaluator: runs a checked program over host arrays with NumPy's
// semantics. It is the reference for every GPU test and the engine behind
// `jitrun --device cpu`.
#pragma once
#include <cstdint>
#include <functional>
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

}  // namespace cujit

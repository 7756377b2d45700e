// jitrun --device all: the program split over every GPU of the host
// (cujit::evaluate_split), its outputs gathered to host memory.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "cpu/eval.hpp"
#include "cujit/array.hpp"

namespace cujit::jitrun {

// The outputs by name, in order of first assignment. `shape` and `types` are
// --shape and -t; `verbose` prints the slices and timings to stderr.
std::vector<std::pair<std::string, Array>> run_split(const std::string& program, const std::vector<Input>& inputs,
                                                     const Shape* shape,
                                                     const std::vector<std::pair<std::string, DType>>& types,
                                                     bool verbose);

}  // namespace cujit::jitrun

// jitrun's one line per output (dtype, shape, min, max, mean, NaNs): a run
// on 10^9 elements neither floods the terminal nor brings its output back
// to the host just to print that line.
#pragma once
#include <string>

#include "cujit/array.hpp"
#include "cujit/multi_gpu.hpp"

namespace cujit::jitrun {

// The statistics are reduced where the array is (its GPU, or the CPU
// evaluator's threads): only a few scalars cross to the host. An output of
// less than 32 MiB on a GPU is copied to the host and reduced there.
std::string summary(const std::string& name, const Array& a);
// The same for an output of a split run, reduced on the GPUs that hold its
// pieces (evaluate_split), the partials combined in device order.
std::string summary(const std::string& name, const SplitArray& a);

}  // namespace cujit::jitrun

// The host fill of the array generators (plan/generator.hpp): the CPU
// evaluator's threads run random.cuh's element functions, the GPU's fill
// kernel (gpu/generate.hpp) gives the same values.
#pragma once
#include "plan/generator.hpp"

namespace cujit {

// Fills `out` (a C-contiguous host array) on the CPU's threads. fail(Usage)
// for randn of an integer or bool dtype.
void generate_host(const GeneratorSpec& spec, const ArrayView& out);

}  // namespace cujit

// The GPU's fill kernel of the array generators (plan/generator.hpp): it
// fills an array in a GPU's memory with the values cpu/generate_host gives,
// bit for bit (both run templates/random.cuh's element functions; NVRTC
// compiles the fill kernel, which goes through the kernel cache like any other).
#pragma once
#include <cuda.h>

#include <cstdint>

#include "plan/generator.hpp"

namespace cujit {

// Fills `out` (a C-contiguous array on a CUDA device) with the values
// generate_host gives, queued on `stream` (nullptr: the legacy default
// stream; the call then returns when the fill is done). The fill kernel for
// the generator and dtype is compiled once (kernel cache) and loaded once per
// device. Nothing of the array's size is allocated on the host.
void generate_device(const GeneratorSpec& spec, const ArrayView& out, CUstream stream = nullptr);

// The fill kernel's CUDA source (what generate_device compiles), for tests.
std::string generator_source(GeneratorSpec::Kind kind, DType dtype);

}  // namespace cujit

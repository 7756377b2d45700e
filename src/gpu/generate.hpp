// The array generators of jitrun's -i NAME=rand(N) ... (zeros, ones, full,
// arange, linspace, rand, randn), filled in host memory or directly in a
// GPU's memory with the same values, bit for bit: both run the element
// functions of templates/random.cuh (the host compiles it as C++, NVRTC into
// a fill kernel that goes through the kernel cache like any other).
//
// rand and randn are counter-based (Philox4x32-10, Box-Muller for randn):
// element k is a function of k and the seed alone, so any slice of an array
// can be made anywhere, in parallel, and a seed always gives the same array.
#pragma once
#include <cuda.h>

#include <cstdint>

#include "cujit/array.hpp"

namespace cujit {

struct GeneratorSpec {
  enum Kind { Zeros, Ones, Full, Arange, Linspace, Rand, Randn } kind = Zeros;
  double value = 0;                 // full
  double start = 0, stop = 0;       // linspace
  std::uint64_t seed = 0;           // rand, randn
};

// The generator's name as jitrun spells it ("randn").
const char* generator_name(GeneratorSpec::Kind k);

// Fills `out` (a C-contiguous host array) on the CPU's threads. fail(Usage)
// for randn of an integer or bool dtype.
void generate_host(const GeneratorSpec& spec, const ArrayView& out);

// Fills `out` (a C-contiguous array on a CUDA device) with the values
// generate_host gives, queued on `stream` (nullptr: the legacy default
// stream; the call then returns when the fill is done). The fill kernel for
// the generator and dtype is compiled once (kernel cache) and loaded once per
// device. Nothing of the array's size is allocated on the host.
void generate_device(const GeneratorSpec& spec, const ArrayView& out, CUstream stream = nullptr);

// The fill kernel's CUDA source (what generate_device compiles), for tests.
std::string generator_source(GeneratorSpec::Kind kind, DType dtype);

}  // namespace cujit

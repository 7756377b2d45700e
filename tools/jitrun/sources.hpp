// Input sources of jitrun's -i NAME=SOURCE: a .npy file, a scalar literal, or a generator.
#pragma once
#include <cstdint>
#include <string>

#include "cujit/array.hpp"

namespace cujit::jitrun {

struct Source {
  HostArray array;
  Array device;       // a generator's array made on the GPU (then `array` is empty)
  bool weak = false;  // an unsuffixed literal: behaves as a Python scalar (NEP 50)
  const ArrayView& view() const { return device ? device.view() : array.view(); }
};

// Generators: rand(N) randn(N) arange(N) linspace(A,B,N) full(N,V) zeros(N) ones(N),
// N an extent, extents joined by 'x' (3x4) or a shape tuple ((3, 4)), 1e6 accepted;
// an optional ":DTYPE" suffix (float32 by default). Values: src/gpu/generate.hpp.
// "1000", "1e6", "3x4" or "(3, 4)".
Shape parse_shape(const std::string& text);

// `text` "-" reads a .npy file from standard input. With `device` >= 0 a
// generator fills its array directly in that GPU's memory (Source::device);
// files and literals stay on the host.
Source make_source(const std::string& name, const std::string& text, std::uint64_t seed, int device = -1);

// A whole text file ("-": standard input) for -f; a Data error naming it when
// it cannot be read.
std::string read_text_file(const std::string& path);

}  // namespace cujit::jitrun

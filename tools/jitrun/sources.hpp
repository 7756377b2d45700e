// Input sources of jitrun's -i NAME=SOURCE: a .npy file, a scalar literal, or a generator.
#pragma once
#include <cstdint>
#include <string>

#include "cujit/array.hpp"

namespace cujit::jitrun {

struct Source {
  HostArray array;
  bool weak = false;  // an unsuffixed literal: behaves as a Python scalar (NEP 50)
};

// Generators: rand(N) randn(N) arange(N) linspace(A,B,N) full(N,V) zeros(N) ones(N),
// N an extent or extents joined by 'x' (3x4), 1e6 accepted; an optional ":DTYPE" suffix (float32 by default).
// "1000", "1e6" or "3x4".
Shape parse_shape(const std::string& text);

// `text` "-" reads a .npy file from standard input.
Source make_source(const std::string& name, const std::string& text, std::uint64_t seed);

// A whole text file ("-": standard input) for -f; a Data error naming it when
// it cannot be read.
std::string read_text_file(const std::string& path);

}  // namespace cujit::jitrun

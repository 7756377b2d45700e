// Input sources of jitrun's -i NAME=SOURCE: a .npy file, a scalar literal, or a generator.
#pragma once
#include <cstdint>
#include <string>

#include "cujit/array.hpp"
#include "cujit/multi_gpu.hpp"

namespace cujit::jitrun {

struct Source {
  HostArray array;
  Array device;       // made or read in a GPU's memory (then `array` is empty)
  SplitArray split;   // --device all: made or read in rows on each GPU (then both above are empty)
  ArrayView whole;    // for a split one: its dtype and shape, for checking the program only (no data of its own)
  bool weak = false;  // an unsuffixed literal: behaves as a Python scalar (NEP 50)
  bool is_split() const { return !split.pieces.empty(); }
  const ArrayView& view() const { return is_split() ? whole : device ? device.view() : array.view(); }
};

// Generators: rand(N) randn(N) arange(N) linspace(A,B,N) full(N,V) zeros(N) ones(N),
// N an extent, extents joined by 'x' (3x4) or a shape tuple ((3, 4)), 1e6 accepted;
// an optional ":DTYPE" suffix (float32 by default). Values: src/gpu/generate.hpp.
// "1000", "1e6", "3x4" or "(3, 4)".
Shape parse_shape(const std::string& text);

// `text` "-" reads a .npy file from standard input. With `device` >= 0 a
// generator fills its array directly in that GPU's memory, and a C-ordered
// native-endian .npy file is read straight into it (Source::device); with
// `split` devices too (jitrun --device all), each GPU makes or reads its own
// rows, cut as evaluate_split cuts them (Source::split). Literals, standard
// input, files read with a dtype conversion and files that need reordering
// stay on the host.
Source make_source(const std::string& name, const std::string& text, std::uint64_t seed, int device = -1,
                   const std::vector<int>& split = {});

// --device all: a split source that does not run along the job's split axis
// (fewer dimensions than the job, or another outermost extent) gathered
// whole onto its first GPU, from where the split copies it to the others.
void unsplit_broadcast(std::vector<Source>& sources, const Shape* job_shape);

// A whole text file ("-": standard input) for -f; a Data error naming it when
// it cannot be read.
std::string read_text_file(const std::string& path);

}  // namespace cujit::jitrun

// generator: the array generators of jitrun's -i NAME=rand(N) ... (zeros,
// ones, full, arange, linspace, rand, randn) as a kind of kernel: the spec,
// and what the host fill (cpu/generate_host) and the GPU's fill kernel
// (gpu/generate) share, so both give the same values bit for bit: the
// element functions of templates/random.cuh, their parameters and the element
// type of each dtype.
//
// rand and randn are counter-based (Philox4x32-10, Box-Muller for randn):
// element k is a function of k and the seed alone, so any slice of an array
// can be made anywhere, in parallel, and a seed always gives the same array.
#pragma once
#include <cstdint>
#include <string>

#include "cujit/array.hpp"

// The generators' element functions and their parameter block, compiled for
// the host from the very text NVRTC compiles into the fill kernels (CMake
// builds the files that include this with -ffp-contract=off, so no product
// fuses into an FMA on the host either).
#include "core/ops_host.hpp"
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "random.cuh"
#pragma GCC diagnostic pop

namespace cujit {

struct GeneratorSpec {
  enum Kind { Zeros, Ones, Full, Arange, Linspace, Rand, Randn } kind = Zeros;
  double value = 0;                 // full
  double start = 0, stop = 0;       // linspace
  std::uint64_t seed = 0;           // rand, randn
  // A slice: the fill makes elements [first, first + size) of the C-ordered
  // array of `whole` elements (-1: the array is all it makes), so each GPU
  // can make its own rows of a split input, the same values as the whole.
  std::int64_t first = 0, whole = -1;
};

// The generator's name as jitrun spells it ("randn").
const char* generator_name(GeneratorSpec::Kind k);

namespace gen {

enum class Family { Rand, Randn, Ramp, Pattern };
Family family(GeneratorSpec::Kind k);
// random.cuh's struct of a family ("rand_").
const char* family_struct(Family f);
// The element type random.cuh uses for a dtype (the pattern generators: the
// unsigned type of the element's size), as the kernel source names it.
std::string element_type_name(Family fam, DType t);
// The fill's parameters for n elements (of spec.whole when it is a slice).
// fail(Usage) for randn of an integer or bool dtype, or a slice past the end.
cj::gen::params make_params(const GeneratorSpec& spec, DType dtype, std::int64_t n);
// fail(Usage) unless `out` is a C-contiguous array in `where`'s memory.
void check_contiguous(const ArrayView& out, Device::Kind where);

// Calls f(T{}) with the element type random.cuh uses for a dtype, or, for
// the pattern generators, the unsigned type of the element's size.
template <class F> void visit_element(Family fam, DType t, F&& f) {
  if (fam == Family::Pattern) {
    switch (dtype_size(t)) {
      case 1: return f(cj_u8{});
      case 2: return f(cj_u16{});
      case 4: return f(cj_u32{});
      case 8: return f(cj_u64{});
      default: return f(cj::gen::u64x2{});
    }
  }
  switch (t) {
#define DTYPE(Id, name, size, Host, Compute, Store, Gen, Cuda) \
  case DType::Id:                                              \
    return f(Gen{});
#include "core/dtypes.def"
#undef DTYPE
  }
}

}  // namespace gen
}  // namespace cujit

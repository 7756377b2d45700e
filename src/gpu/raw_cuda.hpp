// Raw CUDA mode of ElementwiseKernel: the user's operation is pasted into a
// kernel as CUDA C++ statements, as CuPy's ElementwiseKernel does. Opt-in
// only (ElementwiseOptions::raw_cuda): a string from an untrusted user never
// reaches this file unless the caller asked for it.
#pragma once
#include <string>
#include <utility>
#include <vector>

#include "gpu/codegen.hpp"
#include "cujit/dtype.hpp"

namespace cujit {

struct Program;

struct RawCudaKernel {
  std::string operation;  // CUDA statements run once per element
  std::string preamble;   // pasted before the kernel
  std::vector<std::pair<std::string, DType>> typedefs;  // placeholder -> its dtype
};

// What the rendered source depends on beyond the program's parameters: part
// of the cache key.
std::string raw_cuda_id(const RawCudaKernel& k);

// The kernel for `layout`, following kernel_signature(p, layout): `p` is the
// parameter-only Program the ElementwiseKernel built (no statements). Inside
// the element loop each input is a `const T` named as its parameter, each
// output a `T&`, each raw input a `const T*`, and `i`, `n` are long long.
std::string render_raw_cuda(const RawCudaKernel& k, const Program& p, const KernelLayout& layout,
                            const std::string& kernel_name);

// The CUDA type an element of `t` has in raw CUDA code: bool, signed char,
// ..., __half, __nv_bfloat16, float, double, cuda::std::complex<float>, ...
std::string raw_cuda_type(DType t);

}  // namespace cujit

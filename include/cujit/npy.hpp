// NumPy's .npy files to and from cujit arrays: what np.load and np.save do
// for one array, byte for byte.
//
//   cujit::Array x = cujit::load_npy("x.npy");                  // host memory
//   auto outs = cujit::evaluate("y = sqrt(x) * 2", {{"x", x}});
//   cujit::save_npy("y.npy", outs[0].array);
//
// Every dtype is read and written (bfloat16 as ml_dtypes writes it: descr
// '<V2'); files of format versions 1.0, 2.0 and 3.0 are read, in either byte
// order and in C or Fortran order. What is loaded is C-ordered and
// native-endian; what is saved is C-ordered and little-endian. Any problem
// with a file (missing, not a regular file, malformed, truncated, a dtype
// cujit lacks such as '<U5' or object arrays) is a cujit::Error with
// ErrorCode::Data whose message names the file. The tools jitrun and jitcache
// read and write .npy files with the same code.
#pragma once
#include <string>

#include "cujit/array.hpp"
#include "cujit/export.hpp"

namespace cujit {

// Reads the .npy file at `path` into a new array on `device` (host memory by
// default). A CUDA device gets a C-ordered native-endian file's bytes straight
// from the file, through pinned buffers, the read of each chunk overlapping
// the copy of the one before; other files (and "-", standard input) are read
// into host memory and copied.
CUJIT_API Array load_npy(const std::string& path, Device device = {});

// Writes `a` (host or device memory, any byte strides, broadcast and reversed
// views included) to `path` as a C-ordered .npy file. The file is written to
// a temporary beside `path` and renamed over it when complete, so a failed
// write leaves no partial file; only a regular file is replaced. A C-contiguous
// device array is written straight from GPU memory through pinned buffers,
// with no host copy of the whole array.
CUJIT_API void save_npy(const std::string& path, const ArrayView& a);
inline void save_npy(const std::string& path, const HostArray& a) { save_npy(path, a.view()); }

}  // namespace cujit

// Reading and writing NumPy .npy files (format versions 1.0, 2.0 and 3.0).
//
// Every dtype of cujit maps to the descr NumPy writes for it ('|b1', '<i4',
// '<f2', '<c16', ...). bfloat16 has no NumPy dtype: np.save of an
// ml_dtypes.bfloat16 array writes descr '<V2' (a 2-byte "void" that NumPy
// itself never spells with a byte order: np.dtype('V2').str is '|V2'), so
// cujit writes bfloat16 as '<V2' too and reads '<V2' back as bfloat16. The
// bytes are then identical to what np.save writes, np.load opens the file
// without allow_pickle, and `np.load(f).view(ml_dtypes.bfloat16)` gives the
// values back. A plain '|V2' (any 2-byte blob) is refused rather than guessed.
#pragma once
#include <string>
#include <string_view>

#include "cujit/array.hpp"

namespace cujit {

// Reads a .npy file into a C-ordered, native-endian host array. Big-endian
// data is byte-swapped and Fortran-ordered data is transposed on the way in.
// Any problem with the file is an ErrorCode::Data error naming `path`.
// Only regular files are read (a device such as /dev/zero, a FIFO or a
// directory is refused), except standard input, named "-" or "/dev/stdin".
// Every length is bounded before anything is allocated: by the file's size,
// or for standard input by the bytes that actually arrive.
HostArray read_npy(const std::string& path);
bool is_standard_input(const std::string& path);

// The same, from the bytes of a whole .npy file; `name_for_errors` stands for
// the file in messages.
HostArray parse_npy(std::string_view bytes, const std::string& name_for_errors);

// Writes a host view (any byte strides, including negative and zero ones) as
// a C-ordered little-endian .npy file, byte for byte what np.save writes for
// the same array. The data goes to a temporary file in the same directory
// that is renamed over `path` once complete, so a failed write never leaves a
// partial file behind. Only a regular file may be replaced: a device, FIFO or
// directory at `path` (or where its symbolic link points) is an
// ErrorCode::Data error and is left as it is.
void write_npy(const std::string& path, const ArrayView& a);

// The same bytes written to an open descriptor as they are made (a pipe:
// standard output), with no temporary file; `name_for_errors` stands for it.
void write_npy(int fd, const ArrayView& a, const std::string& name_for_errors);
// Any bytes, written by the same rules as write_npy (jitrun --emit cubin).
void write_file(const std::string& path, std::string_view bytes);

}  // namespace cujit

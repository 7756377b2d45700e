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
#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <vector>

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

// A .npy file's header, read and checked as read_npy checks it (regular
// files only), and where its data lies; the data is not read.
struct NpyFile {
  DType dtype = DType::Float64;
  Shape shape;
  bool fortran = false;  // Fortran order in two dimensions or more
  bool swap = false;     // big-endian data
  std::size_t data_offset = 0, nbytes = 0;
  // The file read (device, inode, size), so that a later read of its data
  // can tell whether it is still that file.
  std::uint64_t file_device = 0, file_inode = 0, file_size = 0;
};
NpyFile read_npy_header(const std::string& path);

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
// write_npy's file (its header for `dtype` and `shape`, the temporary file
// renamed over `path`, the fsync) around data that `data` writes itself: it
// gets the descriptor and the offset where the data starts, and writes the
// array's C-ordered bytes there (pwrite, from several threads if it likes);
// false with errno set, or an exception, leaves no file.
void write_npy_with(const std::string& path, DType dtype, const Shape& shape,
                    const std::function<bool(int fd, std::size_t data_offset)>& data);

// A run of an array's C-ordered bytes in a GPU's memory: `bytes` of them at
// `src`, from byte `offset` of the array's data on.
struct DeviceBytes {
  int device = 0;
  const void* src = nullptr;
  std::size_t bytes = 0, offset = 0;
};
// write_npy of an array whose bytes lie in GPU memory, in runs that cover
// them once (a split array's pieces, or one run): each GPU's runs come down
// through pinned buffers of its own, the copy of one chunk overlapping the
// write of the one before, on a thread per GPU; no host copy of the array.
void write_npy_device(const std::string& path, DType dtype, const Shape& shape, const std::vector<DeviceBytes>& runs);

// Where a run of a .npy file's data goes: `bytes` of them, from byte
// `offset` of the data on, to `dst` in a GPU's memory.
struct DeviceTarget {
  int device = 0;
  void* dst = nullptr;
  std::size_t bytes = 0, offset = 0;
};
// The reverse of write_npy_device: runs of the data of `file` (read_npy_header
// of `path`; C-ordered and native-endian, else a Usage error: read_npy
// converts the others) read into GPU memory through pinned buffers, the
// read of one chunk overlapping the copy of the one before, on up to four
// reader threads per GPU (as the cores go: one thread copies from the page
// cache at a tenth of a GPU link's speed); no host copy of the array. A Data error names the file when
// it cannot be read or has become shorter.
void read_npy_device(const std::string& path, const NpyFile& file, const std::vector<DeviceTarget>& runs);

// Any bytes, written by the same rules as write_npy (jitrun --emit cubin).
void write_file(const std::string& path, std::string_view bytes);

}  // namespace cujit

// manifest: the precompile manifest (TOML), a list of kernels to compile
// ahead for given dtypes, layouts and targets. docs/deploy.md describes the
// fields; record mode (src/cache/record.hpp) writes the same format.
//
//   [[kernel]]
//   name = "axpy"
//   in_params = "T x, T y, float32 a"      # an ElementwiseKernel ...
//   out_params = "T z"
//   operation = "z = a * x + y"
//   types = { T = ["float32", "float64"] }
//   scalars = { a = "float" }
//   layouts = ["contiguous", "strided"]
//
//   [[kernel]]
//   program = "out = sin(x)*5"              # ... or a jitrun-style program
//   inputs = ["x=float32"]
//
// Reading checks every field's type and value; errors are ErrorCode::Data
// and start with "FILE:LINE:COLUMN: " of the offending value.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cujit/dtype.hpp"

namespace cujit {

// Where a value sits in the manifest: "m.toml:7:9".
struct ManifestPos {
  std::string file;
  int line = 0, column = 0;
  std::string text() const;
};

struct ManifestLayout {
  std::string name;  // "contiguous", "strided", "broadcast", or an exact layout (KernelLayout::key_string())
  ManifestPos pos;
};

struct ManifestKernel {
  ManifestPos pos;   // its [[kernel]] table
  int number = 0;    // 1-based position in the file
  std::string name;  // ElementwiseKernel name, or the program's CUDA symbol
  bool elementwise = false;
  // ElementwiseKernel form.
  std::string in_params, out_params, operation, preamble;
  bool raw_cuda = false;
  std::vector<std::pair<std::string, std::string>> scalars;  // input -> int, float, complex or a dtype
  // Program form: inputs "name=dtype[:weak|:raw|:scalar]" split up; dtype may be a placeholder.
  std::string program;
  struct Input {
    std::string name, dtype, flag;  // flag: "", "weak", "raw" or "scalar"
  };
  std::vector<Input> inputs;
  std::vector<std::pair<std::string, std::string>> outputs;  // name, dtype
  // Both forms.
  std::vector<std::pair<std::string, std::vector<DType>>> types;  // placeholder -> dtypes to instantiate
  std::vector<ManifestLayout> layouts;                            // default: contiguous
  std::vector<int> index = {32};                                  // 32 and/or 64
  int ndim = 2;                                                   // of strided layouts
  bool fast_math = false;
  std::vector<std::string> nvrtc_options;
  std::vector<int> archs;                                         // default targets (empty: none)
  // A program with reductions: the input shapes it is compiled for, one set
  // per call's shapes (its kernels depend on the shapes' classes). Per set,
  // input -> its extents, or nullopt: "scalar", a 0-d value from the host.
  struct ShapeSet {
    ManifestPos pos;
    std::vector<std::pair<std::string, std::optional<std::vector<std::int64_t>>>> inputs;
  };
  std::vector<ShapeSet> shapes;
  std::map<std::string, ManifestPos> where;                       // field -> position, for later errors

  // "m.toml:7:1: kernel 'axpy'": how errors found later start.
  std::string label() const;
  const ManifestPos& pos_of(const std::string& field) const;
};

struct Manifest {
  std::string file;
  std::vector<ManifestKernel> kernels;
};

// Whether this build reads manifests (it needs toml++).
bool manifest_supported();
Manifest read_manifest(const std::string& path);
// `text` as if read from a file named `name`.
Manifest parse_manifest(std::string_view text, const std::string& name);

}  // namespace cujit

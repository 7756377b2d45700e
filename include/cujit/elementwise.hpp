// ElementwiseKernel: a user-defined elementwise GPU kernel, as CuPy's
// cupy.ElementwiseKernel, whose operation is a cujit program.
//
//   cujit::ElementwiseKernel k("T x, T y, float32 a", "T z", "z = a * x + y", "axpy");
//   k(x, y, 2.0, z);                       // z given: written in place
//   auto out = k(x, y, 2.0);               // z allocated: out[0] has the broadcast shape
//
// Parameters, comma-separated, each `[raw] TYPE NAME`:
//  - TYPE is a dtype name (float32, int64, ...; also double and half) or a
//    placeholder: any other identifier (T, U). A placeholder takes the dtype of
//    the arrays given for it, which must agree; an output's placeholder is
//    bound by the inputs, else by the given output array, else the output
//    takes the dtype the program gives it.
//  - `raw` parameters are indexed in the operation (`x[j]`, flat C order,
//    `size(x)` elements) and take no part in broadcasting.
// Arguments (cujit::Arg): arrays (ArrayView, Array) in the memory of one CUDA
// device, or scalars. A scalar for a parameter of a dtype, or of a placeholder
// bound by an array, is converted to that dtype; otherwise a C++ number is a
// weak scalar (NumPy's NEP 50: it behaves as a literal) and a typed scalar
// (Arg::typed, a host 0-d array) a strong one.
//
// The operation is cujit's language (docs/language.md); only the out_params are
// outputs, every other target is a local. It is checked once per binding of the
// types (at construction when there are no placeholders): errors are
// cujit::Error with ErrorCode::Program and a caret under the culprit.
//
// Raw CUDA mode (options.raw_cuda, never the default): the operation is pasted
// as CUDA C++ statements, as CuPy does. There each input is a `const T` value
// named as the parameter, each output a `T&`, each raw parameter a `const T*`
// pointer (outputs: `T*`), plus `i` (the element index) and `n` (the element
// count), both `long long`, and a `typedef` per placeholder. `options.preamble`
// is pasted before the kernel (device functions). Only the parameter lists are
// checked; a compile error is an ErrorCode::Program error carrying NVRTC's log.
//
// Calls: k(inputs..., outputs...) with every output, or k(inputs...) to
// allocate the outputs. Arrays broadcast as in NumPy; views may be strided or
// broadcast (stride 0); zero-size calls launch nothing; more than 2^31
// elements use 64-bit indexing. Shape, dtype, device and overlap errors (an
// output sharing memory with an input other than exactly in place) are thrown
// before anything is launched. The kernel is compiled on the first call of
// each layout and cached in memory and on disk. Calls are queued on the
// stream (asynchronous), except for programs that can fail at run time (raw
// indexing, weak integer scalars), which wait for the kernel to report.
// A kernel object may be called from many threads at once.
#pragma once
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "cujit/arg.hpp"
#include "cujit/array.hpp"
#include "cujit/export.hpp"

namespace cujit {

struct ElementwiseOptions {
  bool fast_math = false;  // --use_fast_math: faster, outside the contract's accuracy bounds
  int arch = 0;            // compile for sm_<arch>; 0: the arch of the device each call runs on
  StreamHandle stream = nullptr;  // where calls are queued (nullptr: the legacy default stream)
  int device = -1;         // -1: the device of the array arguments (device 0 when none is an array)
  bool raw_cuda = false;   // the operation is CUDA C++ (see above)
  std::string preamble;    // raw CUDA mode: code pasted before the kernel
  std::vector<std::string> nvrtc_options;  // extra NVRTC options (e.g. -I paths for the preamble)
};

// Per call, overriding the kernel's options.
struct CallOptions {
  std::optional<StreamHandle> stream;
  // The output shape when allocating outputs and no input array gives one
  // (a program over raw parameters alone).
  std::optional<Shape> shape;
};

class CUJIT_API ElementwiseKernel {
 public:
  ElementwiseKernel(const std::string& in_params, const std::string& out_params, const std::string& operation,
                    const std::string& name = "kernel", ElementwiseOptions options = {});
  ~ElementwiseKernel();
  ElementwiseKernel(ElementwiseKernel&&) noexcept;
  ElementwiseKernel& operator=(ElementwiseKernel&&) noexcept;

  // k(inputs..., outputs...) or k(inputs...). Returns the allocated outputs
  // (empty when they were given).
  template <class... A>
  std::vector<Array> operator()(const A&... args) const {
    return call({Arg(args)...});
  }
  std::vector<Array> call(std::initializer_list<Arg> args, const CallOptions& options = {}) const;
  std::vector<Array> call(const Arg* args, std::size_t count, const CallOptions& options = {}) const;

  const std::string& name() const;
  std::size_t num_inputs() const;
  std::size_t num_outputs() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cujit

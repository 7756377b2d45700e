// ElementwiseKernel: a user-defined elementwise GPU kernel, as CuPy's
// cupy.ElementwiseKernel, whose operation is a cujit program.
//
//   cujit::ElementwiseKernel k("T x, T y, float32 a", "T z", "z = a * x + y", "axpy");
//   k(x, y, 2.0, z);                       // z given: written in place
//   auto out = k(x, y, 2.0);               // z allocated: out[0] has the broadcast shape
//
// Parameters, comma-separated, each `[raw] TYPE NAME`:
//  - TYPE is a dtype name (float32, int64, ...; also double and half) or a
//    placeholder: any other identifier (T, U) that is not within a typo of a
//    dtype name (`flaot32` is an error: "did you mean 'float32'?"; the rule is
//    in docs/runtime.md). A placeholder takes the dtype of
//    the arrays given for it, which must agree; an output's placeholder is
//    bound by the inputs, else by the given output array, else the output
//    takes the dtype the program gives it.
//  - `raw` parameters are indexed in the operation (`x[j]`, flat C order,
//    `size(x)` elements), must be C-contiguous arrays (a Usage error
//    otherwise) and take no part in broadcasting.
// Arguments (cujit::Arg): arrays (ArrayView, Array) in the memory of one CUDA
// device, or all in host memory, or scalars. A call with no device array
// runs on the CPU evaluator (the reference the GPU kernels are tested
// against), so an application can test its kernels without a GPU; only a call
// that needs a GPU reports a missing driver. Raw CUDA mode needs a GPU. A scalar for a parameter of a dtype, or of a placeholder
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
// allocate the outputs (where the inputs are), returned in out_params order
// and by name: `k(x, y)["z"]`. Arrays broadcast as in NumPy; views may be strided or
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
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cujit/arg.hpp"
#include "cujit/array.hpp"
#include "cujit/export.hpp"
#include "cujit/precompile_report.hpp"

namespace cujit {

struct ElementwiseOptions {
  bool fast_math = false;  // --use_fast_math: faster, outside the contract's accuracy bounds
  int arch = 0;            // compile for sm_<arch>; 0: the arch of the device each call runs on
  StreamHandle stream = nullptr;  // where GPU calls are queued (nullptr: the legacy default stream); host calls run at once
  int device = -1;         // -1: the device of the array arguments (the CPU when none is in device memory)
  bool raw_cuda = false;   // the operation is CUDA C++ (see above)
  std::string preamble;    // raw CUDA mode: code pasted before the kernel
  std::vector<std::string> nvrtc_options;  // extra NVRTC options (e.g. -I paths for the preamble)
};

// Per call, overriding the kernel's options.
struct CallOptions {
  std::optional<StreamHandle> stream;
  // The output shape when allocating outputs and no input array gives one
  // (a program over raw parameters alone). As CuPy's size=, it is a Usage
  // error when a non-raw parameter gets an array: that array's shape decides.
  std::optional<Shape> shape;
};

// The outputs a call allocated, in out_params order (out[0]) and by name
// (out["z"]). Empty when the caller gave the outputs.
class CUJIT_API OutputArrays : public std::vector<Array> {
 public:
  OutputArrays() = default;
  OutputArrays(std::vector<Array> arrays, std::shared_ptr<const std::vector<std::string>> names)
      : std::vector<Array>(std::move(arrays)), names_(std::move(names)) {}
  using std::vector<Array>::operator[];
  // The output named `name`; a Usage error naming the outputs when there is none.
  const Array& operator[](std::string_view name) const;
  Array& operator[](std::string_view name);
  bool contains(std::string_view name) const { return find(name) != nullptr; }

 private:
  const Array* find(std::string_view name) const;
  std::shared_ptr<const std::vector<std::string>> names_;
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
  OutputArrays operator()(const A&... args) const {
    return call({Arg(args)...});
  }
  OutputArrays call(std::initializer_list<Arg> args, const CallOptions& options = {}) const;
  OutputArrays call(const Arg* args, std::size_t count, const CallOptions& options = {}) const;

  const std::string& name() const;
  std::size_t num_inputs() const;
  std::size_t num_outputs() const;

  // Compiles ahead, with no GPU, the kernels that calls would use: with the
  // placeholders bound as `types` says ({{"T", DType::Float32}}; an output's
  // placeholder listed there is bound as if the output arrays were given),
  // for arrays of each layout ("contiguous", "strided", "broadcast"; see
  // docs/deploy.md) and each target. `scalars` names the inputs passed as
  // scalars and how: "int", "float" or "complex" (a C++ number) or a dtype
  // name (Arg::typed). Later calls of this object skip even the source
  // rendering; other processes find the kernels in the disk cache.
  PrecompileReport precompile(const std::map<std::string, DType>& types,
                              const std::vector<std::string>& layouts = {"contiguous"},
                              const std::map<std::string, std::string>& scalars = {},
                              const PrecompileOptions& options = {}) const;

 private:
  friend struct ElementwiseAccess;
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cujit

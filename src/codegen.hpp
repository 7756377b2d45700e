// codegen: a checked Program and a KernelLayout -> the CUDA C++ source of one
// kernel, rendered from the template files in templates/. The layout is chosen
// on the host for each call and is part of the cache key; the kernel's
// parameter list (its ABI) follows from the program and the layout alone and is
// described by kernel_signature().
//
// Semantics: every operation is a call of its function in templates/*.cuh
// (ops.def's impl), the function the CPU evaluator calls. Operands convert to the operation's
// op_type; float16/bfloat16 compute in float32 and round after every
// operation; products never fuse into FMAs (fast_math, a compile option, lets
// them); every operand is evaluated, as on the CPU (no short-circuit).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "cujit/array.hpp"
#include "cujit/dtype.hpp"

namespace cujit {

struct Program;

// How the kernel reaches one operand.
enum class Access : std::uint8_t {
  Contig,   // pointer; element k of the launch is p[k] (C-contiguous, n elements)
  Strided,  // pointer; element k sits at the byte offset sum_d idx_d(k) * stride[d] (Strided layouts only)
  Uniform,  // pointer to a single element used for every k (a size-1 array broadcast); read once per thread
  Value,    // the element itself, by value (a 0-d host scalar; always so for a weak scalar parameter)
  Raw,      // a raw parameter: pointer to a C-contiguous array plus its int64 element count, indexed x[j]
};

struct KernelLayout {
  enum class Kind : std::uint8_t {
    Contiguous,  // every array operand is Contig, Uniform, Value or Raw
    Strided,     // at least one operand is Strided; the Layout argument carries extents and strides
  };
  Kind kind = Kind::Contiguous;
  // 64-bit index arithmetic. The host sets it only where it is needed: n > INT32_MAX,
  // or (Strided) some |byte offset| sum_d (extent_d - 1) * |stride_d| > INT32_MAX.
  bool index64 = false;
  // Contiguous only: elements per vector step (1, 2, 4, 8 or 16); > 1 needs every
  // Contig pointer aligned to min(16, vec * itemsize) bytes (see max_vec()).
  int vec = 1;
  // Strided only: number of dimensions of the (coalesced) iteration shape, 1..8.
  int ndim = 0;
  std::vector<Access> outputs;  // per Program::outputs: Contig or Strided
  std::vector<Access> inputs;   // per Program::inputs: Raw for raw, Value for weak, any but Raw otherwise

  // Stable text naming every choice above, e.g. "c.i32.v4|o:c|i:c,v,r" or
  // "s.i64.d3|o:s|i:s,u"; part of the kernel cache key.
  std::string key_string() const;
  bool operator==(const KernelLayout& o) const;
  bool operator!=(const KernelLayout& o) const { return !(*this == o); }
};

// Contiguous layout: weak inputs by Value, raw ones Raw, every other operand Contig.
KernelLayout contiguous_layout(const Program& p, int vec = 1, bool index64 = false);
// Strided layout: weak inputs by Value, raw ones Raw, every other operand Strided.
KernelLayout strided_layout(const Program& p, int ndim, bool index64 = false);
// The widest vector step whose loads stay within 16 bytes: 16 / the largest
// itemsize among the outputs and the array (non-weak, non-raw) inputs.
int max_vec(const Program& p);
// fail(Internal) unless the layout fits the program (sizes, Access per operand, vec, ndim).
void validate_layout(const Program& p, const KernelLayout& layout);

// ---- the kernel argument ABI ----
//
// extern "C" __global__ void <name>(params...), the parameters in this order:
//   1. each output, Program::outputs order:  T* p_<name>                    [Output]
//   2. each input, Program::inputs order:
//        Contig, Strided, Uniform:  const T* p_<name>                        [Input]
//        Value:                     T s_<name> (the element, by value)       [InputValue]
//        Raw:                       const T* p_<name>, long long z_<name>    [RawData, Size]
//      and, for a non-raw input that the program passes to size():
//                                   long long z_<name> (its element count)   [Size]
//   3. long long cj_n: the number of elements of the launch                  [Count]
//   4. Strided layouts: const cj_layout cj_l, by value                       [Layout]
//        index64:  struct { unsigned long long shape[ndim]; long long stride[S][ndim]; }
//        32-bit:   struct { unsigned int shape[ndim], magic[ndim], shift[ndim]; int stride[S][ndim]; }
//      shape: the iteration extents (C order, outermost first); magic/shift: each
//      extent's divisor constants; stride[s]: the byte strides of the s-th Strided
//      operand, outputs first then inputs, each in program order (0 where the operand
//      is broadcast). pack_layout_arg() builds it.
//   5. programs that can fail at run time (raw indexing, weak integer scalars that
//      must fit an operation's type): long long* cj_err, 4 int64 in device memory
//      that the launcher zeroes before the launch and reads after it      [Error]
//        err[0] == 0: no failure; otherwise kernel_error_message() gives the
//        CPU evaluator's message (fail with ErrorCode::Data).
// T is the storage type of the element: bool (1 byte, 0 or 1), the integer of
// that width, uint16 bits for float16/bfloat16, IEEE float/double, and for
// complex64/complex128 {float re, im} (8 bytes, align 8) / {double re, im}
// (16 bytes, align 16). Weak scalars are int64, float64, complex128 or bool.
// Element k of the launch is the flat C-order index i of the program.
// Launch: a 1-d grid of any size (each thread strides by blockDim.x * gridDim.x);
// with 32-bit indexing launch no more than 2^31 threads. Vector layouts need
// ceil(n / vec) threads to cover n, the others n.
struct ArgSlot {
  enum class Kind : std::uint8_t { Output, Input, InputValue, RawData, Size, Count, Layout, Error };
  Kind kind = Kind::Count;
  int operand = -1;        // position in Program::outputs (Output) or Program::inputs (Input..Size)
  DType dtype = DType::Int64;  // element dtype (Output, Input, InputValue, RawData)
  std::size_t size = 8;    // bytes of the parameter
  std::size_t align = 8;
  std::string name;        // its name in the generated source
};
std::vector<ArgSlot> kernel_signature(const Program& p, const KernelLayout& layout);

// Bytes of the Layout argument, the divisor constants included. `shape` has
// layout.ndim extents; `strides` holds, for each Strided operand in ABI order,
// layout.ndim byte strides. fail(Internal) on a count mismatch or, without
// index64, a value outside 32 bits.
std::vector<unsigned char> pack_layout_arg(const KernelLayout& layout, const std::vector<std::int64_t>& shape,
                                           const std::vector<std::vector<std::int64_t>>& strides);

// Whether the kernel takes the Error argument.
bool needs_error_slot(const Program& p);
// The message for a failure the kernel recorded (err[0] != 0), as the CPU evaluator words it.
std::string kernel_error_message(const Program& p, const std::int64_t err[4]);

// ---- choosing the layout of one call ----

// One operand as the launcher sees it.
struct OperandView {
  std::uintptr_t address = 0;  // device address of element 0 (its alignment decides vectorization)
  DType dtype = DType::Float32;
  Shape shape;
  Shape strides;               // bytes, as ArrayView
  bool host_value = false;     // a 0-d (size-1) input whose value the launcher holds: passed by value
};

struct LaunchPlan {
  KernelLayout layout;
  Shape shape;                             // the outputs' shape
  std::int64_t n = 0;                      // its element count: the Count argument
  std::vector<unsigned char> layout_arg;   // the Layout argument (Strided layouts), from pack_layout_arg
};

// The layout for one call, and the arguments that depend on it. Inputs and
// outputs in program order; weak inputs are ignored (always Value) and their
// views may be empty. Array inputs broadcast against the outputs' shape as
// NumPy does (fail(Data) with the CPU evaluator's message where they do not;
// the outputs must all have the broadcast shape, or any shape when the program
// has no array operand). An input is Value when host_value, else Uniform when
// it has one element (or all-zero strides), else Contig when it is
// C-contiguous in the outputs' shape, else Strided; an output is Contig or
// Strided. Raw inputs must be C-contiguous (fail(Usage): copy them first).
// Strided layouts merge dimensions the strided operands allow and drop
// extent-1 ones; 64-bit indexing only when n or a byte offset needs it;
// contiguous layouts vectorize up to min(max_vec, max_vector) elements, halved
// until every contiguous pointer is aligned to its vector size.
// Outputs must not overlap one another or an input except element for element.
LaunchPlan plan_launch(const Program& p, const std::vector<OperandView>& inputs, const std::vector<OperandView>& outputs,
                       int max_vector = 4);

// `acc` broadcast with input `name`'s shape `next`; fail(Data) when they do not fit.
Shape broadcast_input(const Shape& acc, const Shape& next, const std::string& name);

// ---- source ----


// The kernel source. `kernel_name` and every name of the program must follow
// the name rule (names.hpp): fail(Usage) otherwise, before any text is pasted.
std::string generate_source(const Program& p, const KernelLayout& layout, const std::string& kernel_name);
// That check alone (render_raw_cuda runs it too).
void check_source_names(const Program& p, const std::string& kernel_name);

// Template text by file name ("prelude.cuh"): the copy embedded at build time
// (cmake/embed.cmake), or, when the environment variable CUJIT_TEMPLATE_DIR names a
// folder, that folder's file (fail(Usage) when it has none). Read once per process.
const std::string& template_text(const std::string& file);
// The copy embedded at build time; "" when the build embeds none.
std::string embedded_template(const std::string& file);

}  // namespace cujit

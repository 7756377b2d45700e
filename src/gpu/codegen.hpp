// codegen: a checked Program and a KernelLayout (layout.hpp) -> the CUDA C++
// source of one kernel, rendered from the template files in templates/. The
// kernel's parameter list (its ABI) follows from the program and the layout
// alone and is described by kernel_signature().
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

#include "cujit/dtype.hpp"
#include "plan/layout.hpp"

namespace cujit {

struct Program;
struct Expr;

// ---- the kernel argument ABI ----
//
// extern "C" __global__ void <name>(params...), the parameters in this order:
//   1. each output, Program::outputs order:  T* p_<name>                    [Output]
//      (T* q_<name> for an input updated in place: the launcher passes the
//      input's own view, so the kernel reads it once through p_ and writes it
//      once through q_)
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


// The message for a failure the kernel recorded (err[0] != 0), as the CPU evaluator words it.
std::string kernel_error_message(const Program& p, const std::int64_t err[4]);

// ---- source ----


// The kernel source. `kernel_name` must be a C identifier not starting with "cj_".
std::string generate_source(const Program& p, const KernelLayout& layout, const std::string& kernel_name);
// A reduction's map fused into its kernel (gpu/reduce_launch.hpp): expression
// `e` of `p` converted to `to`, as CUDA over the values v_<name> of the inputs
// it reads (`inputs`, Program::inputs positions; values in compute types, as
// the elementwise kernels hold them), with the template files it needs beyond
// the reduction kernels' own (prelude.cuh, half.cuh). `expr` is empty when
// the map cannot be fused: it reads a local, an output, a weak or raw input,
// the index or a size, or can fail at run time (the error slot).
struct FusedMap {
  std::string expr;
  std::string helpers;
  std::vector<int> inputs;
};
FusedMap fused_map(const Program& p, const Expr& e, DType to);

// That check alone (render_raw_cuda runs it too): every name of the program and the
// kernel name follow the name rule (names.hpp), fail(Usage) otherwise.
void check_source_names(const Program& p, const std::string& kernel_name);

}  // namespace cujit

// The table of operations (ops.def) as records: how check finds a function
// by name and types its arguments, and what later stages read of an operation.
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <vector>

#include "cujit/dtype.hpp"
#include "lang/ast.hpp"

namespace cujit {

// How check types a call's arguments beyond NumPy's loop search.
enum class Special : std::uint8_t { None, TrueDivide, Real, Imag, Where, Clip, Cast, Size, ComplexParts, Reduce };

// What a reduction (a REDUCE row) computes.
enum class Reduce : std::uint8_t { None, Sum, Prod, Min, Max, Mean, Var, Std, Any, All, ArgMin, ArgMax };

// One row of ops.def.
struct Builtin {
  Op id;
  std::string_view name;
  std::string_view alias1, alias2;
  int min_args, max_args;
  // NumPy's loops, in NumPy's search order: "T" computes and returns T, "TR"
  // computes in T and returns R. Codes: ? bool, b B h H i I q Q ints (lower
  // case signed), e float16, E bfloat16, f float32, d float64, F complex64, D complex128.
  std::string_view loops;
  Special special = Special::None;
  std::string_view flags;  // see ops.def
  std::string_view impl;   // its function in templates/*.cuh (namespace cj); "" for forms
  bool is_operator;        // spelled with punctuation, not called by name
  Reduce reduce = Reduce::None;   // reductions: what it computes
  std::string_view keywords;      // reductions: the keyword arguments it takes ("axis keepdims dtype")

  bool is_reduction() const { return reduce != Reduce::None; }
  bool nan_ignoring() const { return is_reduction() && has('N'); }
  bool takes_keyword(std::string_view kw) const;

  bool has(char flag) const { return flags.find(flag) != std::string_view::npos; }
  // The dtype the loop with operand dtype `op_type` returns (its "TR" code's R).
  DType loop_result(DType op_type) const;
};

// The row of an operation; the rows, in Op order.
const Builtin& builtin(Op op);
std::size_t builtin_count();
// Function and cast names: by name or alias; nullptr when unknown.
const Builtin* find_builtin(std::string_view name);
// Every name a user may call (for "did you mean" hints).
std::vector<std::string_view> builtin_names();

// NumPy 2's result dtype of reduction `b` over operand dtype `in`, with its
// dtype= argument when given: sum/prod widen bool and integers narrower than 64
// bits to int64 (uint64 for unsigned); mean/var/std of bool and integers give
// float64; var/std of complex give its real type; argmin/argmax int64; any/all bool.
DType reduce_result(const Builtin& b, DType in, const std::optional<DType>& dtype);
// The dtype a reduction accumulates in: the result dtype, except float16 and
// bfloat16, which accumulate in float32, and mean/var/std, which accumulate in
// their floating result dtype (float64 for integers, as NumPy).
DType reduce_accumulator(const Builtin& b, DType in, const std::optional<DType>& dtype);

// The dtype of a loop code (? b B h H i I q Q e E f d F D); also the dtype numpy.asarray
// gives a Python scalar of a weak dtype.
DType dtype_for_char(char c);

}  // namespace cujit

// check: resolves names, applies NumPy 2's typing rules (result_type, NEP 50
// weak literals, each function's loops) and folds literal-only arithmetic.
// A program that passes check must compile and run.
#pragma once
#include <optional>
#include <string_view>
#include <string>
#include <vector>

#include "ast.hpp"

namespace cujit {

// How check types a call's arguments beyond NumPy's loop search.
enum class Special : std::uint8_t { None, TrueDivide, Real, Imag, Where, Clip, Cast, Size };

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

struct Param {
  std::string name;
  DType dtype = DType::Float32;
  bool weak = false;  // a Python-like scalar: dtype is int64, float64 or complex128 and behaves as a literal
  bool raw = false;
};

struct Var {
  std::string name;
  DType dtype = DType::Float32;
  bool weak = false;
  std::optional<DType> declared;
};

struct OutputDecl {
  std::string name;
  std::optional<DType> dtype;
};

struct Program {
  Ast ast;
  std::vector<Param> inputs;
  std::vector<Var> locals;
  std::vector<Var> outputs;  // in order of first assignment
  bool uses_index = false;   // `i` or `n` appears
};

// Which targets are outputs: with Outputs::Exact, the declared ones alone (an
// ElementwiseKernel's out_params); with Outputs::Infer, the declared ones plus
// every target never read after its first assignment or assigned twice
// (docs/language.md). Declared outputs take the declared dtype when one is given.
enum class Outputs { Infer, Exact };

Program check(Ast ast, const std::vector<Param>& inputs, const std::vector<OutputDecl>& outputs = {},
              Outputs mode = Outputs::Infer);

// parse + check.
Program compile_program(std::string_view source, const std::vector<Param>& inputs,
                        const std::vector<OutputDecl>& outputs = {}, Outputs mode = Outputs::Infer);

// The dtype numpy.asarray gives a Python scalar of this weak dtype.
DType dtype_for_char(char c);

}  // namespace cujit

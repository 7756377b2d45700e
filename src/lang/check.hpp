// check: resolves names, applies NumPy 2's typing rules (result_type, NEP 50
// weak literals, each function's loops) and folds literal-only arithmetic.
// A program that passes check must compile and run.
#pragma once
#include <optional>
#include <string_view>
#include <string>
#include <vector>

#include "lang/ast.hpp"
#include "lang/builtins.hpp"
#include "lang/parse.hpp"

namespace cujit {

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
  // An output that is input `input` updated in place (`x *= 5`): an in/out
  // parameter. Its result goes back into that input's array; -1 otherwise.
  int input = -1;
};

struct OutputDecl {
  std::string name;
  std::optional<DType> dtype;
};

struct Program {
  Ast ast;
  std::vector<Param> inputs;
  std::vector<Var> locals;
  std::vector<Var> outputs;  // in order of first assignment; in/out parameters too (Var::input)
  bool uses_index = false;   // `i` or `n` appears
  // The program can fail at run time (raw indexing, a weak integer operand that
  // must fit its operation's type: Expr::fit), so a kernel takes the error slot
  // and in-place results are staged until the run succeeded.
  bool can_fail = false;
  bool has_reductions = false;  // a reduction appears (then src/plan/reduce_plan.hpp splits it into passes)
};

// Which targets are outputs: with Outputs::Exact, the declared ones alone (an
// ElementwiseKernel's out_params); with Outputs::Infer, the declared ones plus
// every target never read after its first assignment or assigned twice
// (docs/language.md). Declared outputs take the declared dtype when one is given.
// An assigned input is always an output, an in/out parameter (Var::input).
enum class Outputs { Infer, Exact };

Program check(Ast ast, const std::vector<Param>& inputs, const std::vector<OutputDecl>& outputs = {},
              Outputs mode = Outputs::Infer);

// The run-time error of an integer to a negative integer power (NumPy's
// ValueError), the same from the CPU evaluator and a kernel's error slot.
std::string negative_power_message(long long exponent);

// parse + check.
// `placeholders`: see parse().
Program compile_program(std::string_view source, const std::vector<Param>& inputs,
                        const std::vector<OutputDecl>& outputs = {}, Outputs mode = Outputs::Infer,
                        const TypeNames& placeholders = {});


}  // namespace cujit

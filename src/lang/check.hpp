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


}  // namespace cujit

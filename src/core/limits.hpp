// The limits on a program and its parameters (docs/language.md, "Limits").
// Each stage walks the syntax tree recursively and the generated kernel takes
// one argument per operand, so these bounds are what keeps a hostile or
// machine-written program from exhausting the stack, the CPU or the CUDA
// parameter space: past them, a clear error instead.
#pragma once
#include <cstddef>

namespace cujit {

inline constexpr std::size_t kMaxProgramBytes = 1 << 20;  // program text
inline constexpr std::size_t kMaxStatements = 10000;
// Open constructs at once: parentheses, call arguments, unary operators, and
// the right operands of `**` and `c ? a : b` chains (right-associative, so each
// link nests one level deeper).
inline constexpr int kMaxNesting = 200;
// Height of an expression's tree, which long left-associative chains
// (a + a + ... + a) raise one level per operator.
inline constexpr int kMaxDepth = 1000;
// Inputs plus declared outputs: each is one kernel argument (or two) and one
// row of the strided layout's argument; CUDA's parameter space is bounded.
inline constexpr std::size_t kMaxParams = 128;

}  // namespace cujit

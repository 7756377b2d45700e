// The CPU evaluator's instructions: typed loops over one chunk of elements.
//
// The evaluator (eval.cpp) turns a checked program into a list of these once
// per call, each with its loop chosen for its dtypes there, so running a
// chunk is a walk over function pointers: one dtype dispatch per operation and
// chunk, never per element (numexpr's virtual machine works the same way).
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "lang/ast.hpp"
#include "cujit/dtype.hpp"

namespace cujit {
struct Builtin;
}

namespace cujit::cpu {

// One chunk as a loop sees it: `reg[r]` is where register r's values for
// these `n` elements are; `start` is the flat index of the first element.
struct Chunk {
  void* const* reg;
  std::size_t n;
  std::int64_t start;
};

struct Instr;
using Loop = void (*)(const Instr&, const Chunk&);

struct Instr {
  Loop loop = nullptr;
  int out = -1;                 // register written (-1: none, a check)
  int arg[3] = {-1, -1, -1};    // registers read
  const void* info = nullptr;   // loop-specific data, owned by the plan
  unsigned one = 0;             // bit j: the loop reads only the first element of arg[j]
  alignas(16) unsigned char value[16] = {};  // a constant's bytes (fill loops)
};

// The loop of operation `b` with `arity` operands of its loop type `op_type`
// (float16/bfloat16 operands arrive as float32: they compute in float32 and
// round once per operation), or nullptr when it has none. `result` receives
// the dtype the loop writes.
// SLEEF's vector loop where vector_math.hpp has one, else template_loop.
// `uniform`, when given: on entry bit j is set when every element of operand
// j's register holds one value (a constant of the plan); on return, the
// operands the chosen loop reads only the first element of.
Loop op_loop(const Builtin& b, DType op_type, int arity, DType& result, unsigned* uniform = nullptr);
// The loop calling the operation's template function, element by element.
Loop template_loop(const Builtin& b, DType op_type, int arity, DType& result, unsigned* uniform = nullptr);

// The loop converting `from` to `to` with the language's cast (templates/cast.cuh).
Loop convert_loop(DType from, DType to);

// where(): a blend of elements of `item` bytes by a bool register.
Loop select_loop(std::size_t item);

// The instruction sets the three functions above have loops for, best first
// ("avx512", "avx2", "baseline"): each call picks the best this CPU has.
std::vector<std::string> loop_targets();
bool cpu_has_target(const std::string& name);
// The set the loops chosen now are compiled for.
std::string loop_target();
// Tests: only `name`'s loops from now on ("" restores the best). A Usage
// error for a name loop_targets() lacks or one this CPU cannot run.
void force_loop_target(const std::string& name);

}  // namespace cujit::cpu

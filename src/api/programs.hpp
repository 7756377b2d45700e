// programs: the one cache of checked programs. Every way in (evaluate() and
// jitrun, ElementwiseKernel's bindings, the multi-GPU split) asks it for the
// program of a text and a signature, keyed by program_key (gpu/kernel_key.hpp,
// the one key function); only a miss parses the text (one lex) and checks it.
// What it returns runs on either back end: GpuProgram::program() is the
// checked Program the CPU evaluator takes.
#pragma once
#include <functional>
#include <memory>
#include <string_view>
#include <vector>

#include "gpu/launch.hpp"
#include "lang/check.hpp"
#include "lang/parse.hpp"

namespace cujit {

struct ProgramRequest {
  std::string_view source;
  // Name, dtype, weak; raw as declared (ElementwiseKernel's `raw T x`), or,
  // with infer_raw, the inputs the program indexes (evaluate(), jitrun).
  std::vector<Param> params;
  bool infer_raw = false;
  std::vector<OutputDecl> outputs;
  Outputs mode = Outputs::Infer;
  TypeNames placeholders;  // ElementwiseKernel's placeholders bound to dtypes, usable as local types
  GpuOptions gpu;  // the kernel's name, compile options, a raw-CUDA renderer, the recipe
  // Raw CUDA mode: the (unchecked) program, made instead of parse + check.
  std::function<Program()> make;
};

// The program for a request, checked once per process (the cache holds 4096
// and then starts over). `check_ms`, when given, is set to the time parse +
// check took (0 on a hit).
std::shared_ptr<const GpuProgram> checked_program(const ProgramRequest& request, double* check_ms = nullptr);

}  // namespace cujit

// One call that runs a cujit program, wherever its arrays are:
//
//   auto outs = cujit::evaluate("out = sin(x)*5", {{"x", x}});
//   cujit::Array out = outs[0].array;
//
// On the GPU when the input arrays are in CUDA device memory (all on one
// device), on the CPU evaluator when they are in host memory. The outputs are
// inferred as in jitrun (docs/language.md): the declared ones, every target
// no later statement reads, every target assigned twice; they come back in
// order of first assignment, allocated where the inputs are. Inputs the
// program indexes (`x[j]`) are raw parameters. Scalars follow arg.hpp
// (a C++ number is weak, Arg::typed is strong).
//
// Each program text with its parameter signature is checked and compiled once
// per process; a repeated call costs a hash of the text and a cached launch.
#pragma once
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "cujit/arg.hpp"
#include "cujit/array.hpp"
#include "cujit/export.hpp"

namespace cujit {

struct NamedArg {
  std::string name;
  Arg value;
};

struct NamedArray {
  std::string name;
  Array array;
};

struct EvaluateOptions {
  // Where to run: nullopt = where the arrays are (the CPU when no input is an
  // array); Device::cpu() forces the CPU evaluator (device arrays are copied
  // to the host); Device::cuda(k) runs on GPU k (host arrays are copied there).
  std::optional<Device> device;
  std::vector<std::pair<std::string, DType>> output_dtypes;  // declared outputs
  std::optional<Shape> shape;  // output shape when no array input gives one
  StreamHandle stream = nullptr;  // GPU runs are queued here (nullptr: the legacy default stream)
  bool fast_math = false;
};

CUJIT_API std::vector<NamedArray> evaluate(std::string_view program, const std::vector<NamedArg>& inputs,
                                 const EvaluateOptions& options = {});

}  // namespace cujit

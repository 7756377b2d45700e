// One call that runs a cujit program, wherever its arrays are:
//
//   auto outs = cujit::evaluate("out = sin(x)*5", {{"x", x}});
//   cujit::Array out = outs["out"];           // or outs[0].array
//
// On the GPU when the input arrays are in CUDA device memory (all on one
// device), on the CPU evaluator when they are in host memory. The outputs are
// inferred as in jitrun (docs/language.md): the declared ones, every target
// no later statement reads, every target assigned twice; they come back in
// order of first assignment, allocated where the inputs are. Inputs the
// program indexes (`x[j]`) are raw parameters. Scalars follow arg.hpp
// (a C++ number is weak, Arg::typed is strong).
//
// In-place updates: a program may assign an input (`x *= 5; x *= x; x += x`,
// NumPy's in-place ufuncs). The array passed for it is then updated: in
// place where the program runs on its memory, else through a copy that is
// written back before evaluate() returns. Statements after an update read the
// new value. Refused before anything is copied or written (docs/runtime.md):
// an updated input that would be broadcast to the result's shape or is a
// broadcast view (Data), or one that shares memory with another input, even
// as the same view (Usage). A program that can fail at run time (raw
// indexing) leaves the arrays as they were when it fails.
//
// Each program text with its parameter signature is checked and compiled once
// per process; a repeated call costs a hash of the text (or, repeating the
// thread's last call, a comparison with it) and a cached launch.
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

// evaluate()'s outputs in order of first assignment (outs[0].array), and by
// name (outs["out"]). An input the program updates in place (`x *= 5`) is not
// among them: its result is in the array that was passed for it, and its name
// is in `updated`.
class CUJIT_API NamedArrays : public std::vector<NamedArray> {
 public:
  using std::vector<NamedArray>::vector;
  using std::vector<NamedArray>::operator[];
  // The output named `name`; a Usage error naming the outputs when there is none.
  const Array& operator[](std::string_view name) const;
  Array& operator[](std::string_view name);
  bool contains(std::string_view name) const;
  std::vector<std::string> updated;  // the inputs updated in place, in order of first assignment
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

CUJIT_API NamedArrays evaluate(std::string_view program, const std::vector<NamedArg>& inputs,
                                 const EvaluateOptions& options = {});

}  // namespace cujit

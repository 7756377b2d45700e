// One elementwise job split over several GPUs of the host:
//
//   auto outs = cujit::evaluate_split("out = x*y + 5", {{"x", x}, {"y", y}});   // every GPU
//   cujit::Array out = outs[0].gather();          // the whole output in host memory
//   for (const auto& p : outs[0].pieces) ...      // or each GPU's rows where they are
//
// The outputs are cut along their outermost dimension into near-equal row
// ranges, one per device of the list (a device may be listed twice: two
// slices on one GPU, on two streams). Each slice runs on its device's own
// stream with the kernel loaded there. An input that runs along the
// outermost dimension is cut the same way: a slice of one already in that
// device's memory is used in place, one elsewhere (host or another GPU) is
// copied, its slice only; an input that broadcasts along it (extent 1 or
// fewer dimensions) is used in place on its own device and copied whole
// once per other device. Every slice is queued before any is waited for, so
// the GPUs run at once; evaluate_split returns when all are done.
//
// Inputs can also come distributed (SplitInput: scatter() of an array, or an
// earlier evaluate_split's output): a slice reads the rows it needs from the
// piece already on its device, in place; rows no piece on that device holds
// are copied from the whole input, gathered once.
//
// Programs whose elements depend on their position (`i`, `n`) or that index
// an input (`x[j]`) are not split: they run whole on the first device (one
// piece). So is a 0-d output, or one with a single row.
//
// Programs with reductions are split along axis 0 of their inputs: a
// reduction along the rows (`mean(x, axis=-1)`) is each slice's own; one over
// the split axis (`sum(x)`, `argmax(x, axis=0)`) is reduced by each slice to
// partials, combined on the host in the order of the device list (the same
// bits on every run), and read whole by the later statements
// (`out = x / sum(x)`). An output without the split axis comes back as one
// piece, whole, on the first device. What cannot be combined is a Usage
// error before anything runs (docs/runtime.md, "Across GPUs").
//
// A job run again and again can keep its outputs: allocating gigabytes of
// them on every call costs about as much as the kernels themselves
// (bench/results/multi_gpu_h200x2.md), so evaluate_split_into writes into
// outputs the caller made once, with split_empty or by an earlier call:
//
//   std::vector<cujit::SplitArray> outs = {cujit::split_empty(cujit::DType::Float32, shape, devices)};
//   cujit::evaluate_split_into("out = x*y + 5", {{"x", x}, {"y", y}}, {}, outs);
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "cujit/array.hpp"
#include "cujit/evaluate.hpp"
#include "cujit/export.hpp"

namespace cujit {

// The output's rows [begin, end) (of its outermost dimension), in the memory
// of CUDA device `device`.
struct ArrayPiece {
  int device = 0;
  std::int64_t begin = 0, end = 0;
  Array array;
};

// One output of a split job: its dtype and whole shape, and the pieces in
// order of their rows (together they cover every row once).
struct CUJIT_API SplitArray {
  std::string name;
  DType dtype = DType::Float32;
  Shape shape;
  std::vector<ArrayPiece> pieces;
  // The whole output in one C-contiguous array on `where` (host memory by default).
  Array gather(Device where = Device::cpu()) const;
};

// Every CUDA device of the host: {0, 1, ..., device_count() - 1}. A Device
// error when there is none.
CUJIT_API std::vector<int> all_devices();

// An input already cut into pieces on devices.
struct SplitInput {
  std::string name;
  SplitArray array;
};

// `a` cut into pieces as evaluate_split cuts an output of a's shape over
// `devices` (empty: all_devices()), each piece copied to its device.
CUJIT_API SplitArray scatter(const ArrayView& a, const std::vector<int>& devices = {});

// Outputs cut as evaluate_split cuts a `dtype` output of `shape` over
// `devices` (empty: all_devices()), uninitialized, for evaluate_split_into.
// A program that is not split (above) takes one piece: split_empty(dtype, shape, {gpu}).
CUJIT_API SplitArray split_empty(DType dtype, const Shape& shape, const std::vector<int>& devices = {});

// Runs `program` as evaluate() does (the same inputs, the same output
// inference, options.output_dtypes, options.shape and options.fast_math),
// split over `devices` (empty: all_devices()). options.device must be unset
// and options.stream null (each slice gets a stream of its own): a Usage
// error otherwise. Outputs come back in order of first assignment.
CUJIT_API std::vector<SplitArray> evaluate_split(std::string_view program, const std::vector<NamedArg>& inputs,
                                                 const std::vector<int>& devices = {},
                                                 const EvaluateOptions& options = {});
// The same with distributed inputs too (their parameters follow `inputs`').
CUJIT_API std::vector<SplitArray> evaluate_split(std::string_view program, const std::vector<NamedArg>& inputs,
                                                 const std::vector<SplitInput>& distributed,
                                                 const std::vector<int>& devices = {},
                                                 const EvaluateOptions& options = {});

// evaluate_split writing into `outputs` instead of new arrays: one per
// program output, in its order (a name, when set, must be the output's), each
// with the program's dtype and shape and cut as the job cuts it. The job runs
// on the GPUs of outputs[0]'s pieces, in their order (of the first output in
// more pieces when outputs[0] is one, an output without the split axis): the outputs say where,
// so they cannot disagree with a device list. A piece may share no memory with
// another piece or with any input (other slices may still read it; updating
// an input in place is evaluate()'s). Every mismatch is a Usage error
// before anything is copied or launched, the outputs untouched; when it
// returns, the pieces hold the result. A Data error at run time (raw
// indexing) leaves them partly written.
CUJIT_API void evaluate_split_into(std::string_view program, const std::vector<NamedArg>& inputs,
                                   const std::vector<SplitInput>& distributed, const std::vector<SplitArray>& outputs,
                                   const EvaluateOptions& options = {});

}  // namespace cujit

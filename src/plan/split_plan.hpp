// How evaluate_split (cujit/multi_gpu.hpp) cuts one elementwise job into
// slices, one per device: a pure function of the shapes, tested without a GPU.
//
// The output is cut along its outermost dimension into contiguous row ranges
// of near-equal length (the remainder spread one row each over the first
// slices); with fewer rows than devices, the last devices get nothing. An
// input that runs along that dimension with the output's extent is cut the
// same way; one that broadcasts along it (extent 1, or fewer dimensions) goes
// whole to every slice; a scalar passed by value goes as it is.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "cujit/array.hpp"

namespace cujit {

struct InputCut {
  enum Kind { Value, Whole, Rows } kind = Value;
  std::int64_t begin = 0, end = 0;  // Rows: the input's rows [begin, end)
};

struct SplitSlice {
  int device = 0;                // a CUDA ordinal from the caller's list
  std::int64_t begin = 0, end = 0;  // the output's rows [begin, end)
  Shape shape;                   // the slice's output shape
  std::vector<InputCut> inputs;  // one per input
};

// `inputs`: each input's shape, nullopt for a scalar passed by value.
// fail(Usage) for an empty device list. A 0-d output, or one of 0 or 1 rows,
// is one slice on devices[0].
std::vector<SplitSlice> plan_split(const Shape& out, const std::vector<std::optional<Shape>>& inputs,
                                   const std::vector<int>& devices);

}  // namespace cujit

namespace cujit {

// Memory a split job touches, named for messages: an output's piece
// ("output 'out', rows [0, 500) on GPU 0") or an input or one of its pieces.
struct SplitOperand {
  std::string what;
  ArrayView view;
};

// evaluate_split_into writes into the caller's arrays while other slices,
// on other streams, read the inputs (a broadcast input is read by every
// slice), so the element-for-element in-place overlap that one launch
// allows is not safe here: an output piece may share no byte with another
// output piece or with any input on its device. fail(Usage) naming the two.
void check_split_aliasing(const std::vector<SplitOperand>& outputs, const std::vector<SplitOperand>& inputs);

}  // namespace cujit

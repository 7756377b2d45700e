// shapes: the rules of one call's shapes and memory that every back end and
// every kind of kernel applies before it runs: NumPy broadcasting, the output
// shape, in-place updates and overlap between operands. The CPU evaluator and
// the GPU launcher call them with the same arguments, so a program refused
// on one is refused on the other with the same message.
#pragma once
#include <string>

#include "cujit/array.hpp"

namespace cujit {

struct Program;

// The outputs' shape of a call: the NumPy broadcast of the non-raw, non-weak
// array inputs (0-d when there are none). fail(Data) when they do not broadcast.
Shape broadcast_shape(const Program& p, const ArrayView* inputs);

// `acc` broadcast with input `name`'s shape `next`; fail(Data) when they do not fit.
Shape broadcast_input(const Shape& acc, const Shape& next, const std::string& name);

// The shape of the outputs: the inputs' broadcast shape, or `given` (jitrun's
// --shape, EvaluateOptions::shape) when the inputs broadcast to it;
// fail(Data) otherwise. The one check of a requested output shape.
Shape output_shape(const Shape& broadcast, const Shape* given);

// Outputs may not overlap each other, a raw input, or any other input except
// element for element (y = f(y) in place): anything else would read values the
// kernel has already overwritten, in an order no one defines. An output may
// not be a broadcast view (a 0 stride over an extent above 1: its elements
// would be written many times). An input updated in place (Var::input) is
// passed as its own output and shares memory with no other input, not even
// as the same view (that input would still read the old values, where NumPy's
// would see the new ones). fail(Usage) naming the two. The CPU evaluator and
// the CPU path of ElementwiseKernel apply it too, so a kernel tested on host
// arrays is held to the GPU's rule.
void check_overlap(const Program& p, const ArrayView* inputs, const ArrayView* outputs);

// An input updated in place must have the call's output shape `shape`: it
// cannot be broadcast (NumPy: "non-broadcastable output operand"), and it must
// not itself be a broadcast view. fail(Data) naming it. Checked before
// anything is copied or written.
void check_inout(const Program& p, const ArrayView* inputs, const Shape& shape);

// A caller's output k (its dtype and shape) against the call: it must have
// the call's shape, to which the inputs' broadcast shape must broadcast (as
// NumPy's out=), and the program's dtype. fail(Data) otherwise.
void check_given_output(const Program& p, std::size_t k, DType dtype, const Shape& shape, const Shape& call_shape,
                        const Shape& broadcast);

// Input k against the program: the dtype it was checked for, and a raw input
// C-contiguous. fail(Data) / fail(Usage) otherwise.
void check_input(const Program& p, std::size_t k, DType dtype, const Shape& shape, const Shape& strides);

}  // namespace cujit

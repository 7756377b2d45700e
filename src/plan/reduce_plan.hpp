// reduce_plan: a program with reductions, split into passes over memory, the
// same for every back end. A reduction is a second kind of kernel beside the
// elementwise one: this plan says which reductions run, in which order, over
// which shapes and axes, and which elementwise statements use their results;
// each back end brings its own planner (launch shapes, fusion) and kernels for
// the two kinds and never branches inside the elementwise kind for reductions.
//
// The structure, for `z = (x - mean(x, axis=1, keepdims=true)) / std(x, axis=1, keepdims=true)`
// with x of shape (R, C):
//
//   reductions[0]  mean  map `x` over (R, C), axes {1}, keepdims -> (R, 1) float
//   reductions[1]  std   map `x` over (R, C), axes {1}, keepdims -> (R, 1) float
//   elementwise[0] shape (R, C): statement 0 (output z), reading reductions 0 and 1
//
// - A ReduceStep reduces its map (the reduction's argument expression, a
//   subtree of the checked program) over `axes` of the map's broadcast shape.
//   The map reads program inputs, locals (their statements evaluated in the
//   map's shape) and the results of earlier steps (`reads`: each a broadcast
//   input of the map, in its out_shape). Steps are in dependency order: a step
//   reads only steps before it, so running them in order is always valid;
//   steps with no path between them (the mean and std above) may run in one
//   pass when a back end can (the same map and axes).
// - An ElementwiseStep is the statements that make the outputs of one shape,
//   in program order, with the steps they read as broadcast inputs. Outputs of
//   different shapes (`s = sum(x); y = x / s`) are different steps.
// - derive_map / derive_elementwise turn a step into an ordinary elementwise
//   Program (the elementwise kind's input): the reductions it reads replaced
//   by inputs named `_r<step>` after the program's own inputs, the locals it
//   needs included. A back end with no fused kernel for a shape runs the map
//   as such a program into a temporary, then its reduction kernel over it.
//
// Shapes are known only when the program runs; plan_reductions normalises
// the axes against them and reports an axis out of range, or a repeated one,
// as a program error with a caret under the axis.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "cujit/array.hpp"
#include "lang/builtins.hpp"
#include "lang/check.hpp"

namespace cujit::plan {

struct ReduceStep {
  const Expr* call = nullptr;  // the reduction's call in the program (call->builtin, call->reduce)
  const Expr* map = nullptr;   // its argument, call->args[0]
  Reduce what = Reduce::Sum;
  bool nan_ignoring = false;   // nansum, nanmax, ...: NaN counts as absent
  DType in = DType::Float32;   // the map's dtype (a weak map: the dtype numpy.asarray gives it)
  DType acc = DType::Float32;  // the dtype it accumulates in (reduce_accumulator); an integer or
                               // bool one may be widened to 64 bits (wrapping sums and products
                               // agree modulo 2^k), as the CPU does
  DType out = DType::Float32;  // the result's dtype (call->type)
  double ddof = 0;             // var, std
  bool keepdims = false;
  Shape map_shape;             // the map's broadcast shape
  std::vector<int> axes;       // reduced axes of map_shape: sorted, each once
  Shape out_shape;             // the result's shape (1 at the reduced axes with keepdims)
  std::int64_t count = 1;      // elements reduced into each result element
  std::vector<int> reads;      // earlier steps the map reads
  std::vector<int> locals;     // Program::locals the map reads (directly or through other locals)
  // Whether NaNs are looked for: a nan- reduction of values that can be NaN.
  // Of integers and bools NumPy's nan- versions are the plain ones (nanvar of
  // integers is var: no NaN where n - ddof <= 0).
  bool skips_nan() const { return nan_ignoring && (is_float(in) || is_complex(in)); }
};

struct ElementwiseStep {
  Shape shape;                 // the outputs' shape
  std::vector<int> stmts;      // indices into ast.stmts, in program order
  std::vector<int> outputs;    // Program::outputs slots written
  std::vector<int> reads;      // steps read
};

struct ReducePlan {
  std::vector<ReduceStep> reductions;   // dependency order
  std::vector<ElementwiseStep> elementwise;
  std::vector<Shape> output_shapes;     // per Program::outputs
  std::vector<Shape> local_shapes;      // per Program::locals
  // The step of a reduction call of the program; -1 when `call` is none.
  int step_of(const Expr* call) const;
};

// The plan for checked program `p` (p.has_reductions) over inputs of these
// shapes (Program::inputs order; weak and raw inputs are not broadcast).
ReducePlan plan_reductions(const Program& p, const std::vector<Shape>& input_shapes);

// A step as an ordinary elementwise program (no reductions): its inputs are
// the program inputs it reads (in p's order) followed by one per step it reads
// (named `_r<j>`, of that step's out dtype and out_shape); `inputs` maps each
// back: p's input index (>= 0), or -1 - j for step j's result. Its locals and
// statements are clones of p's (spans into the same source, for errors).
struct Derived {
  std::shared_ptr<Program> program;
  std::vector<int> inputs;  // per derived input: p's input index, or -1 - step
};
// Whether `name` is one the derived programs give a reduction's map (`_map`)
// or result (`_r<j>`): outside the names a user may write, so they never clash.
bool is_derived_name(const std::string& name);

// The plan in words, one pass a line (jitrun -v):
//   pass 1: mean(x, axis=1, keepdims=true): x over axes (1) of (8, 5) -> float32 (8, 1)
//   pass 3: elementwise (8, 5): z, t (reads passes 1, 2)
std::string describe(const Program& p, const ReducePlan& plan);

// Step `k`'s map, as one output `_map` of dtype reductions[k].in, over map_shape.
Derived derive_map(const Program& p, const ReducePlan& plan, int k);
// Elementwise step `k` as a program whose outputs are that step's outputs, in
// Program::outputs order (in/out parameters remapped to the derived inputs).
Derived derive_elementwise(const Program& p, const ReducePlan& plan, int k);

}  // namespace cujit::plan

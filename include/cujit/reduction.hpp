// ReductionKernel: a user-defined reduction, as CuPy's cupy.ReductionKernel,
// whose expressions are cujit's language and which runs as its reductions.
//
//   cujit::ReductionKernel l2norm("T x", "T y", "x * x", "a + b", "y = sqrt(a)", "0", "l2norm");
//   auto n = l2norm(x);                          // every axis: n[0] is 0-d
//   auto rows = l2norm.call({x}, {1});           // axis=1
//   l2norm.call({x, y}, {{0, -1}, true});        // axes 0 and -1, keepdims; y given: written in place
//
// The parameters are CuPy's:
//  - in_params, out_params: as ElementwiseKernel's (`T x, float32 w`;
//    placeholders bind to the arrays' dtypes), without raw parameters in
//    the reduced expression. No parameter may be named `a` (the reduced value).
//  - map_expr: one expression of the language over the in_params; its value
//    (the in_params broadcast together) is converted to reduce_type and reduced.
//  - reduce_expr: which reduction, one of `a + b` (sum), `a * b` (prod),
//    `max(a, b)` or `maximum(a, b)` (max, NaN propagates), `min(a, b)` or
//    `minimum(a, b)`, `fmax(a, b)` / `fmin(a, b)` (NaN ignored: nanmax,
//    nanmin), `a || b` (any; `a | b` where reduce_type is bool), `a && b`
//    (all; `a & b` on bool), in either order. Anything else is an
//    ErrorCode::Program error with a caret under it.
//  - post_map_expr: statements of the language assigning the out_params from
//    `a`, the reduced value (of reduce_type), e.g. `y = sqrt(a)`; empty means
//    `y = a` for a single output y.
//  - identity: the reduction's identity, which cujit's reductions start
//    from: 0 (or false) for a sum or any, 1 (or true) for a product or all,
//    or empty; a Usage error otherwise. Ignored for min/max: as NumPy's, a
//    min/max over no elements is an ErrorCode::Data error (CuPy would return
//    the identity).
//  - reduce_type: a dtype name or a placeholder bound by the arguments;
//    empty: the first out_param's type (CuPy's default).
// The program it runs is `RT a = sum(map_expr, dtype=RT, axis=..., keepdims=...)`
// (`max(RT(map_expr), ...)` and so on) followed by post_map_expr, through the
// same program cache and call path as ElementwiseKernel and evaluate(): the
// map is fused into the reduction, results are NumPy's (docs/language.md,
// "Reductions"), and one program is checked per axis pattern and dtypes.
//
// Calls: k(inputs...) or k.call({inputs..., outputs...}, {axis, keepdims}).
// Arrays in device memory run on their GPU, on the caller's stream (queued,
// as ElementwiseKernel's); arrays all in host memory run on the CPU evaluator.
// Given outputs must have the reduced shape and the declared dtype; allocated
// ones are returned as ElementwiseKernel's (`out[0]`, `out["y"]`).
#pragma once
#include <initializer_list>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "cujit/arg.hpp"
#include "cujit/elementwise.hpp"
#include "cujit/export.hpp"

namespace cujit {

// The axes to reduce, as NumPy's axis=: none given (Axes{} too) means every
// axis; an axis may be negative (counted from the end); an empty list,
// Axes(std::vector<int>{}), reduces none (NumPy's axis=()).
struct Axes {
  Axes() = default;
  Axes(int axis) : list(std::vector<int>{axis}), single(true) {}  // NOLINT: implicit, as NumPy's axis=1
  Axes(std::initializer_list<int> axes) : list(std::vector<int>(axes)) {}
  explicit Axes(std::vector<int> axes) : list(std::move(axes)) {}
  std::optional<std::vector<int>> list;  // nullopt: every axis
  bool single = false;                   // given as one int (axis=1), not a list
};

struct ReduceOptions {
  ReduceOptions() = default;
  ReduceOptions(Axes axes) : axis(std::move(axes)) {}  // NOLINT: implicit, so that {1} and {{0, 2}} read as axes
  // keepdims a bool exactly, so that ReduceOptions({0, 2}) is axes 0 and 2, never axis 0 with keepdims=2.
  template <class B, std::enable_if_t<std::is_same_v<B, bool>, int> = 0>
  ReduceOptions(Axes axes, B keep) : axis(std::move(axes)), keepdims(keep) {}
  Axes axis;
  bool keepdims = false;
  std::optional<StreamHandle> stream;  // overrides ReductionOptions::stream
};

// ElementwiseOptions where they apply to a reduction (no raw CUDA mode).
struct ReductionOptions {
  bool fast_math = false;  // --use_fast_math: faster, outside the contract's accuracy bounds
  int arch = 0;            // compile for sm_<arch>; 0: the arch of the device each call runs on
  StreamHandle stream = nullptr;  // where GPU calls are queued (nullptr: the legacy default stream)
  int device = -1;         // -1: the device of the array arguments (the CPU when none is in device memory)
  std::vector<std::string> nvrtc_options;
};

class CUJIT_API ReductionKernel {
 public:
  ReductionKernel(const std::string& in_params, const std::string& out_params, const std::string& map_expr,
                  const std::string& reduce_expr, const std::string& post_map_expr, const std::string& identity,
                  const std::string& name = "reduce_kernel", const std::string& reduce_type = "",
                  ReductionOptions options = {});
  ~ReductionKernel();
  ReductionKernel(ReductionKernel&&) noexcept;
  ReductionKernel& operator=(ReductionKernel&&) noexcept;

  // k(inputs...) or k(inputs..., outputs...), reducing every axis.
  template <class... A>
  OutputArrays operator()(const A&... args) const {
    return call({Arg(args)...});
  }
  OutputArrays call(std::initializer_list<Arg> args, const ReduceOptions& options = {}) const;
  OutputArrays call(const Arg* args, std::size_t count, const ReduceOptions& options = {}) const;

  const std::string& name() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace cujit

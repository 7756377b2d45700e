// The CPU back end's entry points (declared in cpu/eval.hpp): a program with
// reductions goes to their planner and loops (cpu/reduce), any other to the
// elementwise evaluator (cpu/eval). A file of its own, so that neither of the
// two includes the other.
#include <fmt/format.h>

#include "core/fail.hpp"
#include "cpu/eval.hpp"
#include "cpu/reduce.hpp"

namespace cujit {

std::vector<Output> evaluate_program(const Program& p, const std::vector<Input>& inputs, const Shape* shape,
                                     const CpuOptions& options, const ArrayView* outputs) {
  if (!p.has_reductions) return evaluate_elementwise(p, inputs, shape, options, outputs);
  return evaluate_reductions(p, inputs, shape, options, outputs);
}

std::vector<Output> evaluate_cpu(std::string_view source, const std::vector<Input>& inputs,
                                 const std::vector<OutputDecl>& outputs) {
  std::vector<Param> params;
  for (const Input& in : inputs) {
    if (in.view.device.kind != Device::CPU)
      fail(ErrorCode::Usage, "input '{}' is in GPU memory; the CPU evaluator needs host arrays", in.name);
    if (in.weak && (in.view.shape.ndim != 0 || !(in.view.dtype == DType::Int64 || in.view.dtype == DType::Float64 ||
                                                 in.view.dtype == DType::Complex128 || in.view.dtype == DType::Bool)))
      fail(ErrorCode::Usage, "weak input '{}' must be a 0-d int64, float64, complex128 or bool", in.name);
    params.push_back(Param{in.name, in.view.dtype, in.weak, in.raw});
  }
  Program p = compile_program(source, params, outputs);
  return evaluate_program(p, inputs);
}

}  // namespace cujit

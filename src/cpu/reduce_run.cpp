// A program with reductions on the CPU: the plan's passes in order (see
// reduce.hpp), each elementwise part run by the ordinary evaluator.
#include <string>

#include "plan/shapes.hpp"
#include "core/array.hpp"
#include "cpu/reduce.hpp"
#include "cpu/thread_pool.hpp"
#include "core/fail.hpp"
#include "plan/layout.hpp"

namespace cujit {

namespace {

// The inputs of a derived program: the caller's, and the reductions' results.
std::vector<Input> derived_inputs(const plan::Derived& d, const std::vector<Input>& inputs,
                                  const std::vector<HostArray>& results) {
  std::vector<Input> v;
  for (int k : d.inputs) {
    if (k >= 0) {
      v.push_back(inputs[static_cast<std::size_t>(k)]);
      continue;
    }
    Input r;
    r.name = "_r" + std::to_string(-1 - k);
    r.view = results[static_cast<std::size_t>(-1 - k)].view();
    v.push_back(r);
  }
  return v;
}

}  // namespace

std::vector<Output> evaluate_reductions(const Program& p, const std::vector<Input>& inputs, const Shape* shape,
                                        const CpuOptions& options, const ArrayView* outputs) {
  if (inputs.size() != p.inputs.size())
    fail(ErrorCode::Usage, "the program has {} parameters but {} inputs were given", p.inputs.size(), inputs.size());
  std::vector<Shape> shapes;
  for (const Input& in : inputs) shapes.push_back(in.view.shape);
  const plan::ReducePlan rp = plan::plan_reductions(p, shapes);
  if (shape && rp.elementwise.size() > 1)
    fail(ErrorCode::Usage, "this program's outputs have different shapes, so it takes no output shape (given {})",
         to_string(*shape));
  std::vector<HostArray> results(rp.reductions.size());
  for (std::size_t k = 0; k < rp.reductions.size(); ++k) {
    const plan::ReduceStep& st = rp.reductions[k];
    const Expr& m = *st.map;
    // An input, or an earlier result, is reduced where it is; any other map
    // is computed inside the reduction where it can be, else into a temporary
    // first. So is a bool input, whose bytes the map reads as NumPy does (any
    // nonzero byte is True: eval.cpp's bool_loop), where the reduction's own
    // loops would add them.
    ArrayView map;
    HostArray tmp;
    const int inner = rp.step_of(&m);
    if (m.kind == Expr::Name && m.sym == Sym::Input && !p.inputs[static_cast<std::size_t>(m.slot)].weak &&
        inputs[static_cast<std::size_t>(m.slot)].view.dtype == st.in && st.in != DType::Bool) {
      map = inputs[static_cast<std::size_t>(m.slot)].view;
    } else if (inner >= 0 && results[static_cast<std::size_t>(inner)].dtype() == st.in) {
      map = results[static_cast<std::size_t>(inner)].view();
    } else {
      const plan::Derived d = plan::derive_map(p, rp, static_cast<int>(k));
      if (fuses(st) && BlockEvaluator::applies(*d.program)) {
        // `sum(x*y)`: x*y made segment by segment inside the sum, never whole in memory.
        const int threads = options.threads > 0 ? options.threads : cpu_threads();
        BlockEvaluator map_blocks(*d.program, derived_inputs(d, inputs, results), st.map_shape, threads);
        results[k] = reduce_fused(map_blocks, st, threads);
        continue;
      }
      CpuOptions o;
      o.threads = options.threads;
      std::vector<Output> outs = evaluate_program(*d.program, derived_inputs(d, inputs, results), &st.map_shape, o);
      tmp = std::move(outs[0].array);
      map = tmp.view();
    }
    results[k] = reduce_host(map, st, options.threads);
  }
  std::vector<Output> outs(p.outputs.size());
  for (std::size_t g = 0; g < rp.elementwise.size(); ++g) {
    const plan::ElementwiseStep& es = rp.elementwise[g];
    const plan::Derived d = plan::derive_elementwise(p, rp, static_cast<int>(g));
    const Shape s = output_shape(es.shape, shape);
    std::vector<ArrayView> given(es.outputs.size());
    if (outputs)
      for (std::size_t j = 0; j < es.outputs.size(); ++j) given[j] = outputs[static_cast<std::size_t>(es.outputs[j])];
    std::vector<Output> part =
        evaluate_program(*d.program, derived_inputs(d, inputs, results), &s, options, outputs ? given.data() : nullptr);
    for (std::size_t j = 0; j < part.size(); ++j) outs[static_cast<std::size_t>(es.outputs[j])] = std::move(part[j]);
  }
  return outs;
}

}  // namespace cujit

#include "api/call.hpp"

#include "api/reduce_call.hpp"

#include <chrono>
#include <utility>

#include "core/array.hpp"
#include "core/driver.hpp"
#include "core/fail.hpp"
#include "core/pool.hpp"
#include "cpu/eval.hpp"
#include "plan/shapes.hpp"

namespace cujit {

namespace {

using Clock = std::chrono::steady_clock;
double ms_since(Clock::time_point t0) { return std::chrono::duration<double, std::milli>(Clock::now() - t0).count(); }

bool is_host_scalar(const ArrayView& v) { return v.device.kind == Device::CPU && v.shape.ndim == 0; }

// The shape the call's outputs have: requested, else a given output's, else
// the inputs' broadcast shape.
Shape outputs_shape(const Call& c) {
  const Program& p = c.program.program();
  const Shape broadcast = broadcast_shape(p, c.inputs.data());
  if (c.shape) return output_shape(broadcast, c.shape);
  for (std::size_t o = 0; o < p.outputs.size(); ++o)
    if (p.outputs[o].input < 0 && c.given[o]) return c.outputs[o].shape;
  return broadcast;
}

// Inputs updated in place are refused before anything is copied or written
// when they are broadcast or share memory with another operand.
void check_in_place(const Call& c, const Shape& shape) {
  const Program& p = c.program.program();
  Scratch<ArrayView, 8> outs(p.outputs.size());
  for (std::size_t o = 0; o < p.outputs.size(); ++o) {
    const int k = p.outputs[o].input;
    if (k >= 0) outs[o] = c.inputs[static_cast<std::size_t>(k)];
    else if (c.given[o]) outs[o] = c.outputs[o];
    else outs[o].shape = Shape{0};  // a new array: nothing overlaps it
  }
  check_inout(p, c.inputs.data(), shape);
  check_overlap(p, c.inputs.data(), outs.data());
}

std::vector<Array> run_on_cpu(Call& c, const Shape* shape, const CallHooks& hooks, CallStats& st) {
  const Program& p = c.program.program();
  std::vector<Input> inputs;
  inputs.reserve(p.inputs.size());
  for (std::size_t k = 0; k < p.inputs.size(); ++k)
    inputs.push_back(Input{p.inputs[k].name, c.inputs[k], p.inputs[k].weak, p.inputs[k].raw});
  Scratch<ArrayView, 8> outs(p.outputs.size());
  for (std::size_t o = 0; o < p.outputs.size(); ++o)
    if (c.given[o] && p.outputs[o].input < 0) {
      const ArrayView& y = c.outputs[o];
      if (y.device.kind != Device::CPU)
        fail(ErrorCode::Usage, "output '{}' is in GPU memory, but the call runs on the CPU; give all arrays in host memory",
             p.outputs[o].name);
      // The launcher's checks and words, so a kernel that passes here passes there
      // (a program with reductions: each pass's, as the GPU's).
      if (!p.has_reductions) check_given_output(p, o, y.dtype, y.shape, *shape, broadcast_shape(p, c.inputs.data()));
      outs[o] = y;
    }
  CpuOptions cpu;
  cpu.progress = hooks.progress;
  auto t0 = Clock::now();
  std::vector<Output> results = evaluate_program(p, inputs, shape, cpu, outs.data());
  st.run_ms = ms_since(t0);
  std::vector<Array> made(p.outputs.size());
  for (std::size_t o = 0; o < results.size(); ++o)
    if (!c.given[o] && !results[o].in_place && results[o].array.data()) made[o] = Array(std::move(results[o].array));
  return made;
}

// The pool's ordering with a call's own stream (src/core/pool.hpp), made
// when a call on a stream other than the legacy one first allocates.
struct CallFence {
  const Call& c;
  std::shared_ptr<StreamFence> fence;
  const std::shared_ptr<StreamFence>& get() {
    if (!fence && c.stream && pool_in_use(c.where.id)) fence = std::make_shared<StreamFence>(c.where.id, c.stream);
    return fence;
  }
  Array empty(DType dtype, const Shape& shape) { return ArrayInternals::device(dtype, shape, c.where.id, get()); }
};

std::vector<Array> run_on_gpu(Call& c, const Shape& shape, bool staged, bool wait, bool allocates, const CallHooks& hooks,
                              CallStats& st, CallFence& fence) {
  const Program& p = c.program.program();
  std::vector<Array> made;  // nothing on the heap for a call whose outputs are all given
  if (allocates) made.resize(p.outputs.size());
  std::vector<Array> staging;
  for (std::size_t o = 0; o < p.outputs.size(); ++o) {
    const Var& v = p.outputs[o];
    if (v.input >= 0 && !staged) {
      c.outputs[o] = c.inputs[static_cast<std::size_t>(v.input)];
    } else if (v.input >= 0) {
      // A program that can fail at run time leaves the arrays it updates as
      // they were: their results go to new arrays, copied in after success.
      staging.push_back(fence.empty(v.dtype, shape));
      c.outputs[o] = staging.back().view();
    } else if (!c.given[o]) {
      made[o] = fence.empty(v.dtype, shape);
      c.outputs[o] = made[o].view();
    }
  }
  if (fence.fence) fence.fence->after_allocations();
  auto t0 = Clock::now();
  c.program.launch(c.where.id, c.inputs.data(), c.outputs.data(), c.stream, hooks.stats ? &st.launch : nullptr);
  if (fence.fence) fence.fence->record_use();
  if (wait || hooks.stats || hooks.launched || staged) {
    synchronize(c.where.id, c.stream);
    st.run_ms = ms_since(t0);
  }
  if (hooks.launched) hooks.launched(c.inputs.data(), c.outputs.data());
  if (staged)
    for (std::size_t o = 0; o < p.outputs.size(); ++o)
      if (p.outputs[o].input >= 0) copy_into(c.inputs[static_cast<std::size_t>(p.outputs[o].input)], c.outputs[o]);
  return made;
}

}  // namespace

Call::Call(const GpuProgram& p)
    : program(p),
      inputs(p.program().inputs.size()),
      outputs(p.program().outputs.size()),
      given(p.program().outputs.size()) {}

std::optional<Shape> implied_shape(const Program& p, const ArrayView* inputs, const std::optional<Shape>& requested) {
  if (requested) return requested;
  if (broadcast_shape(p, inputs).ndim == 0)
    for (std::size_t k = 0; k < p.inputs.size(); ++k)
      if (p.inputs[k].raw) return inputs[k].shape;
  return std::nullopt;
}

std::vector<Array> run_call(Call& c, const CallHooks& hooks) {
  const Program& p = c.program.program();
  CallStats local;
  CallStats& st = hooks.stats ? *hooks.stats : local;
  bool any_inout = false, allocates = false;
  for (std::size_t o = 0; o < p.outputs.size(); ++o) {
    any_inout = any_inout || p.outputs[o].input >= 0;
    allocates = allocates || (p.outputs[o].input < 0 && !c.given[o]);
  }
  const bool on_gpu = c.where.kind == Device::CUDA;
  // The CPU evaluator finds the shape and checks in-place updates itself; the
  // GPU launcher checks given outputs against the inputs itself.
  // A program with reductions has a shape per output: the CPU evaluator's
  // reduction planner finds them and checks each pass (src/plan/reduce_plan.hpp).
  Shape shape;
  if (!p.has_reductions && (!on_gpu || allocates || any_inout)) shape = outputs_shape(c);
  if (!p.has_reductions && on_gpu && any_inout) check_in_place(c, shape);

  // Operands where the call runs: arrays elsewhere are copied there (scalars
  // pass by value), and an input updated in place gets its copy's result back.
  std::vector<Array> copies;
  CallFence fence{c, nullptr};
  std::vector<std::pair<ArrayView, std::size_t>> back;  // (the caller's array, input k)
  auto t0 = Clock::now();
  for (std::size_t k = 0; k < p.inputs.size(); ++k) {
    const Param& q = p.inputs[k];
    ArrayView& v = c.inputs[k];
    if (q.weak) continue;
    bool inout = false;
    for (const Var& o : p.outputs) inout = inout || o.input == static_cast<int>(k);
    if (on_gpu && q.raw && is_host_scalar(v)) fail(ErrorCode::Usage, "raw parameter '{}' needs an array, not a scalar", q.name);
    if (v.device == c.where || (on_gpu && is_host_scalar(v) && !inout) || !c.move_inputs) continue;
    if (on_gpu) {
      copies.push_back(fence.empty(v.dtype, v.shape));
      copies.back().copy_from(v);
    } else {
      copies.push_back(Array::copy_of(v, c.where));
    }
    if (inout) back.emplace_back(v, k);
    v = copies.back().view();
  }
  if (!copies.empty()) st.upload_ms = ms_since(t0);

  std::vector<Array> made =
      !on_gpu            ? run_on_cpu(c, p.has_reductions ? c.shape : &shape, hooks, st)
      : p.has_reductions ? run_reductions_on_gpu(c, hooks, st, &run_call)
                         : run_on_gpu(c, shape, any_inout && p.can_fail, hooks.wait || !back.empty(), allocates, hooks,
                                      st, fence);
  if (!back.empty()) {
    auto t1 = Clock::now();
    for (const auto& [to, k] : back) copy_into(to, c.inputs[k]);
    st.download_ms += ms_since(t1);
  }
  return made;
}

}  // namespace cujit

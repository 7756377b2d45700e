#include "plan/split_reduce.hpp"

#include <algorithm>

#include <fmt/format.h>

#include "core/fail.hpp"
#include "cujit/error.hpp"

namespace cujit::plan {

namespace {

// A shape of the real plan against the same shape of the probe plan: 1 when
// it runs along the split axis (axis 0: `rows` there, the probe here, the
// rest alike), 0 when it does not (alike, no probe), -1 when the probe turned
// up elsewhere.
int along(const Shape& real, const Shape& probe, std::int64_t rows, std::int64_t q) {
  if (real.ndim != probe.ndim) return -1;
  for (int d = 0; d < real.ndim; ++d) {
    if (real[d] == probe[d]) continue;
    if (d != 0 || real[d] != rows || probe[d] != q) return -1;
  }
  return real.ndim > 0 && probe[0] == q && real[0] == rows ? 1 : 0;
}

std::string text_of(const Program& p, const Expr& e) { return p.ast.source.substr(e.span.begin, e.span.end - e.span.begin); }

// Whether cpu/split_combine.hpp combines this reduction's partials into NumPy's result.
bool combines(const ReduceStep& st) {
  if (is_complex(st.in) || is_complex(st.acc) || is_complex(st.out)) return false;
  switch (st.what) {
    case Reduce::Sum:
    case Reduce::Prod:
    case Reduce::Min:
    case Reduce::Max: return true;  // their nan- versions too: NaN-free partials combine as the plain ones
    case Reduce::Mean:
    case Reduce::Var:
    case Reduce::Std: return true;  // the nan- versions with each slice's count of non-NaN elements
    case Reduce::ArgMin:
    case Reduce::ArgMax: return !st.nan_ignoring;  // a slice of nothing but NaN has no partial index
    case Reduce::Any:
    case Reduce::All: return true;
    case Reduce::None: break;
  }
  return false;
}

void check_across(const char* who, const Program& p, const SplitReduce& r) {
  for (std::size_t k = 0; k < r.steps.size(); ++k) {
    const ReduceStep& st = r.plan.reductions[k];
    if (r.steps[k] != StepCut::Rows && !combines(st))
      fail(ErrorCode::Usage,
           "{}: `{}`: a split run does not combine this reduction's per-GPU partials in a program that reduces over "
           "the split axis (it combines every reduction of real values but nanargmin and nanargmax); run it on one "
           "GPU (evaluate(), jitrun --device N)",
           who, text_of(p, *st.call));
  }
}

std::string axes_text(const ReduceStep& st) {
  if (st.axes.empty()) return ", axis=()";
  std::string axes;
  for (int a : st.axes) axes += (axes.empty() ? "" : ", ") + std::to_string(a);
  return ", axis=(" + axes + (st.axes.size() == 1 ? ",)" : ")");
}

DType wide(DType acc) {
  if (is_bool(acc) || is_signed_int(acc)) return DType::Int64;
  if (is_integer(acc)) return DType::UInt64;
  return acc;
}

}  // namespace

bool SplitReduce::across() const { return std::find(steps.begin(), steps.end(), StepCut::Across) != steps.end(); }

SplitReduce plan_split_reduce(const char* who, const Program& p, const std::vector<std::optional<Shape>>& inputs) {
  SplitReduce r;
  std::vector<Shape> real(p.inputs.size());
  std::int64_t largest = 1;
  for (std::size_t k = 0; k < p.inputs.size(); ++k) {
    if (k < inputs.size() && inputs[k] && !p.inputs[k].weak && !p.inputs[k].raw) real[k] = *inputs[k];
    r.ndim = std::max(r.ndim, real[k].ndim);
    for (int d = 0; d < real[k].ndim; ++d) largest = std::max(largest, real[k][d]);
  }
  for (const Shape& s : real)
    if (r.rows == 0 && r.ndim > 0 && s.ndim == r.ndim && s[0] > 1) r.rows = s[0];
  r.plan = plan_reductions(p, real);
  r.input_rows.assign(p.inputs.size(), false);
  r.steps.assign(r.plan.reductions.size(), StepCut::Whole);
  r.output_rows.assign(p.outputs.size(), false);
  r.elementwise_rows.assign(r.plan.elementwise.size(), false);
  r.split = r.rows > 1;
  if (!r.split) return r;

  // The probe: an extent no axis of any input has, so where it shows, it came from the split axis.
  const std::int64_t q = largest + 1;
  std::vector<Shape> probe_shapes = real;
  for (std::size_t k = 0; k < real.size(); ++k) {
    r.input_rows[k] = real[k].ndim == r.ndim && real[k][0] == r.rows;
    if (r.input_rows[k]) probe_shapes[k][0] = q;
  }
  auto apart = [&] {
    fail(ErrorCode::Usage,
         "{}: the program's rows do not run apart: a value along the split axis (axis 0 of its inputs of {} "
         "dimension(s), {} rows) is broadcast against another axis (as in `x - mean(x, axis=-1)` of a square x); run "
         "it on one GPU (evaluate(), jitrun --device N)",
         who, r.ndim, r.rows);
  };
  ReducePlan probe;
  try {
    probe = plan_reductions(p, probe_shapes);
  } catch (const Error&) {
    apart();
  }
  auto cut = [&](const Shape& a, const Shape& b) {
    const int v = along(a, b, r.rows, q);
    if (v < 0) apart();
    return v == 1;
  };
  for (std::size_t k = 0; k < r.plan.reductions.size(); ++k) {
    const ReduceStep& st = r.plan.reductions[k];
    cut(st.out_shape, probe.reductions[k].out_shape);
    if (cut(st.map_shape, probe.reductions[k].map_shape))
      r.steps[k] = std::binary_search(st.axes.begin(), st.axes.end(), 0) ? StepCut::Across : StepCut::Rows;
  }
  for (std::size_t l = 0; l < r.plan.local_shapes.size(); ++l) cut(r.plan.local_shapes[l], probe.local_shapes[l]);
  for (std::size_t o = 0; o < p.outputs.size(); ++o) r.output_rows[o] = cut(r.plan.output_shapes[o], probe.output_shapes[o]);
  for (std::size_t g = 0; g < r.plan.elementwise.size(); ++g)
    r.elementwise_rows[g] = cut(r.plan.elementwise[g].shape, probe.elementwise[g].shape);
  if (r.across()) check_across(who, p, r);
  return r;
}

DType combine_dtype(const ReduceStep& st) { return wide(st.acc); }

std::string step_source(const ReduceStep& st) {
  const ReduceArgs& r = *st.call->reduce;
  const bool arg = st.what == Reduce::ArgMin || st.what == Reduce::ArgMax;
  std::string s = "p = " + std::string(st.call->builtin->name) + "(m";
  if (arg) s += ", axis=" + std::to_string(st.axes.at(0));
  else s += axes_text(st);
  if (st.keepdims) s += ", keepdims=true";
  if (st.what == Reduce::Var || st.what == Reduce::Std) s += fmt::format(", ddof={}", st.ddof);
  if (r.dtype) s += ", dtype=" + std::string(dtype_name(*r.dtype));
  return s + ")";
}

std::int64_t partial_count(const ReduceStep& st, std::int64_t rows, std::int64_t begin, std::int64_t end) {
  return rows == 0 ? 0 : st.count / rows * (end - begin);
}

std::int64_t partial_offset(const ReduceStep& st, std::int64_t rows, std::int64_t begin) {
  const bool flat = st.axes.size() == static_cast<std::size_t>(st.map_shape.ndim);
  return flat && rows > 0 ? st.map_shape.size() / rows * begin : begin;
}

std::string partial_source(const ReduceStep& st) {
  const bool all = st.axes.size() == static_cast<std::size_t>(st.map_shape.ndim);
  const std::string axes = all ? "" : axes_text(st);
  const std::string nan = st.nan_ignoring ? "nan" : "";
  const std::string dtype = std::string(", dtype=") + std::string(dtype_name(combine_dtype(st)));
  switch (st.what) {
    case Reduce::Sum: return "p = " + nan + "sum(m" + axes + dtype + ")";
    case Reduce::Mean:  // nanmean: the slice's count of elements that are not NaN too
      return "p = " + nan + "sum(m" + axes + dtype + ")" + (st.nan_ignoring ? "; c = sum(m == m" + axes + ")" : "");
    case Reduce::Prod: return "p = " + nan + "prod(m" + axes + dtype + ")";
    case Reduce::Min: return "p = " + nan + "min(m" + axes + ")";
    case Reduce::Max: return "p = " + nan + "max(m" + axes + ")";
    case Reduce::Any: return "p = any(m" + axes + ")";
    case Reduce::All: return "p = all(m" + axes + ")";
    case Reduce::ArgMin:
    case Reduce::ArgMax: {
      const bool mn = st.what == Reduce::ArgMin;
      const std::string axis = all ? "" : ", axis=" + std::to_string(st.axes[0]);
      return std::string("v = ") + (mn ? "min" : "max") + "(m" + axes + "); k = " + (mn ? "argmin" : "argmax") + "(m" +
             axis + ")";
    }
    case Reduce::Var:
    case Reduce::Std: {
      // float16 and bfloat16 as the CPU's loops take them: in float32.
      const std::string m = is_half(st.in) ? "float32(m)" : "m";
      return "a = " + nan + "mean(" + m + axes + "); v = " + nan + "var(" + m + axes + ")" +
             (st.nan_ignoring ? "; c = sum(m == m" + axes + ")" : "");
    }
    case Reduce::None: break;
  }
  fail(ErrorCode::Internal, "split plan: a step with no reduction");
}

}  // namespace cujit::plan

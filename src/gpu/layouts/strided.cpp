// The strided layout's kernel: each element's multi-index found once (with
// templates/index.cuh) gives every strided operand's byte offset; contiguous
// operands index by k (templates/kernel_strided.cu).
#include "gpu/layouts/layout_codegen.hpp"

#include <algorithm>

namespace cujit {
namespace {

std::string element(const KernelParts& k, const std::string& ptr, Access a) {
  return a == Access::Strided ? k.offset(ptr) : ptr + "[cj_k]";
}

void input(KernelParts& k, const Param& q, Access a, const std::string& decl) {
  k.load.push_back(decl + k.load_value(q.dtype, element(k, ptr_name(q.name), a)) + ";");
}

void output(KernelParts& k, const Var& v, Access a) {
  k.store.push_back(element(k, out_ptr(v), a) + " = " + k.store_value(v.dtype, out_val(v)) + ";");
}

std::string describe(const KernelLayout& l) { return std::to_string(l.ndim) + "-d strided"; }

std::string render(const KernelParts& k, std::map<std::string, std::string>& vars) {
  vars["NDIM"] = std::to_string(k.l.ndim);
  vars["STRIDED_NAMES"] = join_text(k.strided_names, ", ");
  layout_struct_vars(k, k.l.ndim, false, vars);
  vars["OFFSETS"] = offsets_text("cj_k", std::to_string(k.l.ndim) + " - 1", vars);
  return "kernel_strided.cu";
}

// A thread an element, as the contiguous layout without vectors.
LaunchGrid grid(const LaunchPlan& plan, int block, unsigned max_grid) {
  LaunchGrid g;
  g.block = static_cast<unsigned>(block);
  g.grid = static_cast<unsigned>(std::min<std::int64_t>((plan.n + block - 1) / block, max_grid));
  return g;
}

}  // namespace

extern const LayoutCodegen kStridedCodegen = {KernelLayout::Kind::Strided, input, output, describe, render, grid};

}  // namespace cujit

// The rows layout's kernel: a row's byte offsets found once per row (with
// templates/index.cuh over the outer dimensions), then the row in aligned
// vectors of `vec`; RowScalar inputs read once a row (templates/kernel_rows.cu).
// The grid: x across a row, y over rows.
#include "gpu/layouts/layout_codegen.hpp"

#include <algorithm>

namespace cujit {
namespace {

// The y extent of a grid may not exceed 65535 (CUDA's limit on every
// dimension but x); the kernel's row loop covers the rest.
constexpr std::int64_t kMaxGridY = 65535;

void input(KernelParts& k, const Param& q, Access a, const std::string& decl) {
  const std::string ptr = ptr_name(q.name);
  if (a == Access::RowScalar) {
    k.row_setup.push_back(decl + k.load_value(q.dtype, k.offset(ptr)) + ";");
    return;
  }
  k.row_setup.push_back("const " + stype(q.dtype) + "* const " + row_ptr(ptr) + " = &" + k.offset(ptr) + ";");
  k.load.push_back(decl + k.load_value(q.dtype, row_ptr(ptr) + "[cj_kc]") + ";");
  const std::string vt = vec_type(q.dtype, k.l.vec);
  k.vload.push_back("const " + vt + " a_" + q.name + " = reinterpret_cast<const " + vt + "*>(" + row_ptr(ptr) + ")[cj_kv];");
  k.velem.push_back(decl + k.load_value(q.dtype, "a_" + q.name + ".v[cj_j]") + ";");
}

void output(KernelParts& k, const Var& v, Access) {
  const std::string val = out_val(v), vec = out_vec(v), ptr = out_ptr(v), vt = vec_type(v.dtype, k.l.vec);
  k.row_setup.push_back(stype(v.dtype) + "* const " + row_ptr(ptr) + " = &" + k.offset(ptr) + ";");
  k.store.push_back(row_ptr(ptr) + "[cj_kc] = " + k.store_value(v.dtype, val) + ";");
  k.vload.push_back(vt + " " + vec + ";");
  k.velem.push_back(ctype(v.dtype) + " " + val + ";");
  k.vstore_elem.push_back(vec + ".v[cj_j] = " + k.store_value(v.dtype, val) + ";");
  k.vstore.push_back("reinterpret_cast<" + vt + "*>(" + row_ptr(ptr) + ")[cj_kv] = " + vec + ";");
}

std::string describe(const KernelLayout& l) {
  return std::to_string(l.ndim) + "-d rows, " + std::to_string(l.vec) + " per vector";
}

std::string render(const KernelParts& k, std::map<std::string, std::string>& vars) {
  const int nouter = k.l.ndim - 1;
  vars["VEC"] = std::to_string(k.l.vec);
  vars["NOUTER"] = std::to_string(nouter);
  vars["ROW"] = join_text(k.row_setup, "\n");
  vars["VINDEX"] = k.uses_index ? "const cj_idx cj_k = cj_row * cj_inner + cj_kv * " + std::to_string(k.l.vec) + " + cj_j;" : "";
  vars["INDEX"] = k.uses_index ? "const cj_idx cj_k = cj_row * cj_inner + cj_kc;" : "";
  vars["VLOAD"] = join_text(k.vload, "\n");
  vars["VELEM"] = join_text(k.velem, "\n");
  vars["VSTORE_ELEM"] = join_text(k.vstore_elem, "\n");
  vars["VSTORE"] = join_text(k.vstore, "\n");
  layout_struct_vars(k, nouter, true, vars);
  vars["OFFSETS"] = offsets_text("cj_row", std::to_string(nouter) + " - 1", vars);
  return "kernel_rows.cu";
}

// One vector step a thread, as the contiguous layout: x threads across a row
// (a power of two, no more than a row's steps need), the rest of the block
// over rows, so short rows still fill whole warps.
LaunchGrid grid(const LaunchPlan& plan, int max_block, unsigned max_grid) {
  std::int64_t block = 1;
  while (block * 2 <= max_block) block *= 2;
  const std::int64_t steps = (plan.inner + plan.layout.vec - 1) / plan.layout.vec;
  std::int64_t bx = 1;
  while (bx < steps && bx < block) bx *= 2;
  const std::int64_t by = block / bx;
  LaunchGrid g;
  g.block = static_cast<unsigned>(bx);
  g.block_y = static_cast<unsigned>(by);
  g.grid = static_cast<unsigned>(std::min<std::int64_t>((steps + bx - 1) / bx, max_grid));
  g.grid_y = static_cast<unsigned>(std::min<std::int64_t>((plan.rows + by - 1) / by, kMaxGridY));
  return g;
}

}  // namespace

extern const LayoutCodegen kRowsCodegen = {KernelLayout::Kind::Rows, input, output, describe, render, grid};

}  // namespace cujit

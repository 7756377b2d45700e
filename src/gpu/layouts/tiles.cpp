// The tiles layout's kernel: tiles of 16*vec a side over the last two
// dimensions, Tiled inputs transposed through shared memory, the rest read and
// written in vectors along the rows (templates/kernel_tiles.cu, the batch's
// offsets with templates/index.cuh). The grid: a block a tile.
#include "gpu/layouts/layout_codegen.hpp"

#include <algorithm>

namespace cujit {
namespace {

// A vector of a thread's block row.
std::string tile_vec(DType t, int n) { return "cj_tv<" + stype(t) + ", " + std::to_string(n) + ">::t"; }

// The bytes where a thread's block row starts in an operand (e_x, f_x as in rows layouts).
std::string tile_row(const KernelParts& k, const std::string& ptr, bool in) {
  const std::string last = std::to_string(k.l.ndim - 1), second = std::to_string(k.l.ndim - 2);
  std::string s = std::to_string(k.row.at(ptr)), c = in ? "const " : "";
  return c + "char* const " + row_ptr(ptr) + " = reinterpret_cast<" + c + "char*>(" + ptr + ") + cj_o[" + s +
         "] + (cj_off)cj_rr * cj_l.stride[" + s + "][" + second + "] + (cj_off)(cj_V * cj_cv) * cj_l.stride[" + s + "][" +
         last + "];";
}

void tiled_input(KernelParts& k, const Param& q, const std::string& decl) {
  const std::string st = std::to_string(k.row.at(ptr_name(q.name))), tv = tile_vec(q.dtype, k.l.vec);
  const std::string last = std::to_string(k.l.ndim - 1);
  k.tile_decl.push_back("__shared__ " + tv + " cj_t_" + q.name + "[" + std::to_string(16 * k.l.vec) + "][16];");
  k.tile_load.push_back("cj_tile_in<" + stype(q.dtype) + ", " + std::to_string(k.l.vec) + ", " + std::to_string(k.l.load_vec) +
                        ", cj_idx, cj_off>(cj_t_" + q.name + ", reinterpret_cast<const char*>(" + ptr_name(q.name) + ") + cj_o[" +
                        st + "] + (cj_off)(cj_V * cj_lr) * (cj_off)sizeof(" + stype(q.dtype) + ") + (cj_off)(cj_V * cj_lc) * cj_l.stride[" +
                        st + "][" + last + "], cj_l.stride[" + st + "][" + last +
                        "], cj_r0 + cj_V * cj_lr, cj_nr, cj_c0 + cj_V * cj_lc, cj_nc, cj_lr, cj_lc);");
  k.vload.push_back("const " + tv + " a_" + q.name + " = cj_t_" + q.name + "[cj_rr][cj_cv ^ ((cj_rr / cj_V) & 15)];");
  k.velem.push_back(decl + k.load_value(q.dtype, "a_" + q.name + ".v[cj_j]") + ";");
}

void input(KernelParts& k, const Param& q, Access a, const std::string& decl) {
  if (a == Access::Tiled) return tiled_input(k, q, decl);
  const std::string ptr = ptr_name(q.name), st = std::to_string(k.row.at(ptr)), tv = tile_vec(q.dtype, k.l.vec);
  k.row_setup.push_back(tile_row(k, ptr, true));
  k.vload.push_back("const " + tv + " a_" + q.name + " = cj_row_in<" + stype(q.dtype) + ", " + std::to_string(k.l.vec) + ", " +
                    std::to_string(k.l.store_vec) + ">(" + row_ptr(ptr) + ", cj_l.stride[" + st + "][" +
                    std::to_string(k.l.ndim - 1) + "], cj_cn);");
  k.velem.push_back(decl + k.load_value(q.dtype, "a_" + q.name + ".v[cj_j]") + ";");
}

void output(KernelParts& k, const Var& v, Access) {
  const std::string val = out_val(v), vec = out_vec(v), ptr = out_ptr(v);
  k.store.push_back(k.offset(ptr) + " = " + k.store_value(v.dtype, val) + ";");
  k.row_setup.push_back(tile_row(k, ptr, false));
  k.vload.push_back(tile_vec(v.dtype, k.l.vec) + " " + vec + ";");
  k.velem.push_back(ctype(v.dtype) + " " + val + ";");
  k.vstore_elem.push_back(vec + ".v[cj_j] = " + k.store_value(v.dtype, val) + ";");
  k.vstore.push_back("cj_row_out<" + stype(v.dtype) + ", " + std::to_string(k.l.vec) + ", " + std::to_string(k.l.store_vec) + ">(" +
                     row_ptr(ptr) + ", " + vec + ", cj_cn);");
}

std::string describe(const KernelLayout& l) {
  return std::to_string(l.ndim) + "-d tiles of " + std::to_string(16 * l.vec) + ", vectors of " + std::to_string(l.load_vec) +
         " down a tiled column and " + std::to_string(l.store_vec) + " along a row";
}

std::string render(const KernelParts& k, std::map<std::string, std::string>& vars) {
  vars["NDIM"] = std::to_string(k.l.ndim);
  vars["V"] = std::to_string(k.l.vec);
  vars["VL"] = std::to_string(k.l.load_vec);
  vars["VS"] = std::to_string(k.l.store_vec);
  vars["TILES"] = join_text(k.tile_decl, "\n");
  vars["TILE_LOAD"] = join_text(k.tile_load, "\n");
  vars["ROW"] = join_text(k.row_setup, "\n");
  vars["VLOAD"] = join_text(k.vload, "\n");
  vars["VELEM"] = join_text(k.velem, "\n");
  vars["VSTORE_ELEM"] = join_text(k.vstore_elem, "\n");
  vars["VSTORE"] = join_text(k.vstore, "\n");
  vars["VINDEX"] = k.uses_index ? "const cj_idx cj_k = (cj_b * cj_nr + cj_r) * cj_nc + cj_c + cj_j;" : "";
  layout_struct_vars(k, k.l.ndim, false, vars);
  vars["OFFSETS"] = offsets_text("cj_b", std::to_string(k.l.ndim) + " - 3", vars);
  return "kernel_tiles.cu";
}

// 256 threads a tile (the kernel's __launch_bounds__), a block a tile up to
// the grid's limit (the kernel loops over the rest).
LaunchGrid grid(const LaunchPlan& plan, int, unsigned max_grid) {
  const std::int64_t side = 16 * plan.layout.vec;
  const std::int64_t batch = plan.rows * plan.inner > 0 ? plan.n / (plan.rows * plan.inner) : 0;
  const std::int64_t tiles = batch * ((plan.rows + side - 1) / side) * ((plan.inner + side - 1) / side);
  LaunchGrid g;
  g.block = 256;
  g.grid = static_cast<unsigned>(std::min<std::int64_t>(tiles, max_grid));
  return g;
}

}  // namespace

extern const LayoutCodegen kTilesCodegen = {KernelLayout::Kind::Tiles, input, output, describe, render, grid};

}  // namespace cujit

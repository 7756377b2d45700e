// The strided layout's kernel: each element's multi-index found once (with
// templates/index.cuh) gives every strided operand's byte offset; contiguous
// operands index by k; kUnroll elements a thread each step, all loaded before
// any is stored (templates/kernel_strided.cu).
#include "gpu/layouts/layout_codegen.hpp"

namespace cujit {
namespace {

// Elements a thread computes each step, all loaded before any is stored. With
// one, a thread had one load in flight: Nsight Compute on an H100 (`z = x*2 + 1`,
// x = a[::2], float32, 2^24) showed 46.9 cycles between a warp's instructions,
// stalled on L1TEX, and an H200 reached 0.56 of the memory's bound, against
// ~0.67 for PyTorch's four a thread, loads first (the bound of stride-2 floats).
// The kernel's pointers are not __restrict__, so the compiler cannot move a
// load above a store itself: the template orders them.
constexpr int kUnroll = 4;

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

// What a step's storing loop needs from its computing loop, kept per element
// cj_u: each output's value (cjk_<name>), the strided outputs' offsets
// (cj_ko; their rows lead cj_o, outputs numbered first) and, for a contiguous
// output, the index. KEEP declares, SAVE fills, RESTORE reads them back.
void keep_vars(const KernelParts& k, std::map<std::string, std::string>& vars) {
  const std::string u = std::to_string(kUnroll);
  std::vector<std::string> keep, save, restore;
  int rows = 0;
  bool by_k = false;
  for (const Var& v : k.p.outputs) {
    const std::string kept = "cjk_" + v.name;
    keep.push_back(ctype(v.dtype) + " " + kept + "[" + u + "];");
    save.push_back(kept + "[cj_u] = " + out_val(v) + ";");
    restore.push_back("const " + ctype(v.dtype) + " " + out_val(v) + " = " + kept + "[cj_u];");
    if (k.row.count(out_ptr(v))) ++rows;
    else by_k = true;
  }
  if (by_k) restore.insert(restore.begin(), "const cj_idx cj_k = cj_k0 + cj_u * cj_step;");
  if (rows > 0) {
    const std::string r = std::to_string(rows);
    keep.push_back("cj_off cj_ko[" + u + "][" + r + "];");
    save.insert(save.end(), {"#pragma unroll", "for (int cj_s = 0; cj_s < " + r + "; ++cj_s) cj_ko[cj_u][cj_s] = cj_o[cj_s];"});
    restore.insert(restore.end(), {"cj_off cj_o[" + r + "];", "#pragma unroll",
                                   "for (int cj_s = 0; cj_s < " + r + "; ++cj_s) cj_o[cj_s] = cj_ko[cj_u][cj_s];"});
  }
  vars["KEEP"] = join_text(keep, "\n");
  vars["SAVE"] = join_text(save, "\n");
  vars["RESTORE"] = join_text(restore, "\n");
}

std::string render(const KernelParts& k, std::map<std::string, std::string>& vars) {
  vars["NDIM"] = std::to_string(k.l.ndim);
  vars["STRIDED_NAMES"] = join_text(k.strided_names, ", ");
  vars["UNROLL"] = std::to_string(kUnroll);
  layout_struct_vars(k, k.l.ndim, false, vars);
  vars["OFFSETS"] = offsets_text("cj_k", std::to_string(k.l.ndim) + " - 1", vars);
  keep_vars(k, vars);
  return "kernel_strided.cu";
}

// kUnroll elements a thread, a block per `block` threads up to the device's
// cap (the kernel's grid-stride loop covers the rest).
LaunchGrid grid(const LaunchPlan& plan, int block, unsigned max_grid) {
  return thread_grid((plan.n + kUnroll - 1) / kUnroll, block, max_grid);
}

}  // namespace

extern const LayoutCodegen kStridedCodegen = {KernelLayout::Kind::Strided, input, output, describe, render, grid};

}  // namespace cujit

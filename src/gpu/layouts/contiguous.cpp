// The contiguous layout's kernel: element k of every array operand is p[k],
// moved `vec` elements at a time when vec > 1 (templates/kernel_contiguous.cu,
// templates/kernel_vector.cu).
#include "gpu/layouts/layout_codegen.hpp"

namespace cujit {
namespace {

void input(KernelParts& k, const Param& q, Access, const std::string& decl) {
  k.load.push_back(decl + k.load_value(q.dtype, ptr_name(q.name) + "[cj_k]") + ";");
  if (k.l.vec == 1) return;
  const std::string vt = vec_type(q.dtype, k.l.vec);
  k.vload.push_back("const " + vt + " a_" + q.name + " = reinterpret_cast<const " + vt + "*>(" + ptr_name(q.name) + ")[cj_kv];");
  if (q.dtype == DType::Float16) {  // converted a vector at a time (half.cuh's h2f_vec: one NaN test per vector)
    k.vload.push_back("float cjh_" + q.name + "[" + std::to_string(k.l.vec) + "];");
    k.vload.push_back("cj::h2f_vec(a_" + q.name + ", cjh_" + q.name + ");");
    k.velem.push_back(decl + "cjh_" + q.name + "[cj_j];");
    return;
  }
  k.velem.push_back(decl + k.load_value(q.dtype, "a_" + q.name + ".v[cj_j]") + ";");
}

void output(KernelParts& k, const Var& v, Access) {
  const std::string val = out_val(v), vec = out_vec(v), ptr = out_ptr(v);
  k.store.push_back(ptr + "[cj_k] = " + k.store_value(v.dtype, val) + ";");
  if (k.l.vec == 1) return;
  k.vload.push_back(vec_type(v.dtype, k.l.vec) + " " + vec + ";");
  k.velem.push_back(ctype(v.dtype) + " " + val + ";");
  if (v.dtype == DType::Float16 || v.dtype == DType::BFloat16) {
    // rounded a vector at a time (half.cuh's f2h_vec/f2b_vec: one NaN test per vector)
    k.vload.push_back("float cjo_" + v.name + "[" + std::to_string(k.l.vec) + "];");
    k.vstore_elem.push_back("cjo_" + v.name + "[cj_j] = " + val + ";");
    k.vstore.push_back(std::string(v.dtype == DType::Float16 ? "cj::f2h_vec(" : "cj::f2b_vec(") + "cjo_" + v.name +
                       ", " + vec + ");");
  } else {
    k.vstore_elem.push_back(vec + ".v[cj_j] = " + k.store_value(v.dtype, val) + ";");
  }
  k.vstore.push_back("reinterpret_cast<" + vec_type(v.dtype, k.l.vec) + "*>(" + ptr + ")[cj_kv] = " + vec + ";");
}

std::string describe(const KernelLayout& l) {
  return l.vec > 1 ? "contiguous, " + std::to_string(l.vec) + " per vector" : "contiguous";
}

std::string render(const KernelParts& k, std::map<std::string, std::string>& vars) {
  if (k.l.vec == 1) return "kernel_contiguous.cu";
  vars["VEC"] = std::to_string(k.l.vec);
  vars["VINDEX"] = k.uses_index ? "const cj_idx cj_k = cj_kv * " + std::to_string(k.l.vec) + " + cj_j;" : "";
  vars["VLOAD"] = join_text(k.vload, "\n");
  vars["VELEM"] = join_text(k.velem, "\n");
  vars["VSTORE_ELEM"] = join_text(k.vstore_elem, "\n");
  vars["VSTORE"] = join_text(k.vstore, "\n");
  return "kernel_vector.cu";
}

// One vector step a thread, a block per `block` threads up to the device's cap
// (the kernel's grid-stride loop covers the rest).
LaunchGrid grid(const LaunchPlan& plan, int block, unsigned max_grid) {
  const std::int64_t threads = (plan.n + plan.layout.vec - 1) / plan.layout.vec;
  const std::int64_t blocks = (threads + block - 1) / block;
  LaunchGrid g;
  g.block = static_cast<unsigned>(block);
  g.grid = static_cast<unsigned>(std::min<std::int64_t>(blocks, max_grid));
  return g;
}

}  // namespace

extern const LayoutCodegen kContiguousCodegen = {KernelLayout::Kind::Contiguous, input, output, describe, render, grid};

}  // namespace cujit

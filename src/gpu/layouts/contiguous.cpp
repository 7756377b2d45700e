// The contiguous layout's kernel: element k of every array operand is p[k],
// moved `vec` elements at a time when vec > 1 (templates/kernel_contiguous.cu,
// templates/kernel_vector.cu).
#include "gpu/layouts/layout_codegen.hpp"

namespace cujit {
namespace {

// Vectors a thread loads together before computing them. Two where a vector
// holds 16 one-byte elements: then a thread does ~200 instructions between a
// load and its store, and with one load in flight per thread the uint8 image
// program reached 0.79 of a copy on an H200 (2^28), against 0.95 with two
// (bench/results/layouts_h200/, the A/B of 2026-11-25). Wider elements keep
// one: their kernels are at the copy's speed already.
// Whether a vector of `t` moves as 32-bit words (prelude.cuh's vload/vstore):
// 8- and 16-bit elements, whose vectors the compiler otherwise takes apart
// and builds again a byte at a time.
bool as_words(DType t, int vec) {
  const int b = static_cast<int>(dtype_size(t));
  return b <= 2 && b * vec >= 4;
}

// The vector at index `at` of `ptr`'s vectors of `vec` elements of `t`.
std::string vload(DType t, int vec, const std::string& ptr, const std::string& at) {
  const std::string p = "reinterpret_cast<const " + vec_type(t, vec) + "*>(" + ptr + ")";
  return as_words(t, vec) ? "cj::vload(" + p + " + " + at + ")" : p + "[" + at + "]";
}

// Vectors a thread loads together before computing them: two where a vector
// holds 16 one-byte elements and there is one array input. Such a thread does
// some 200 instructions between a load and its store, and one load in flight
// left the H200's memory idle (the uint8 image program at 2^28: 0.88 of a copy
// with one, 0.90 with two; a uint8 mask 0.96 and 0.99). With two byte inputs
// the compiler interleaves the vectors' work: an int8 program went from 31 to
// 80 registers and from 0.82 to 0.72 of a copy at 2^28 (ab_vectors_2026-11-25.md).
int vector_steps(const KernelLayout& l) {
  if (l.vec < 16) return 1;
  int arrays = 0;
  for (const Access a : l.inputs) arrays += a == Access::Contig;
  return arrays == 1 ? 2 : 1;
}

void input(KernelParts& k, const Param& q, Access, const std::string& decl) {
  k.load.push_back(decl + k.load_value(q.dtype, ptr_name(q.name) + "[cj_k]") + ";");
  if (k.l.vec == 1) return;
  const std::string vt = vec_type(q.dtype, k.l.vec);
  if (vector_steps(k.l) == 1) {
    k.vload.push_back("const " + vt + " a_" + q.name + " = " + vload(q.dtype, k.l.vec, ptr_name(q.name), "cj_kv") + ";");
  } else {  // every step's vectors loaded first (kernel_vector.cu)
    const std::string raw = "cjr_" + q.name, steps = std::to_string(vector_steps(k.l));
    k.vraw.push_back(vt + " " + raw + "[" + steps + "];");
    k.vraw.push_back("#pragma unroll");
    k.vraw.push_back("for (int cj_u = 0; cj_u < " + steps + "; ++cj_u)");
    k.vraw.push_back("  if (cj_kv0 + cj_u * cj_step < cj_nvec) " + raw + "[cj_u] = " +
                     vload(q.dtype, k.l.vec, ptr_name(q.name), "cj_kv0 + cj_u * cj_step") + ";");
    k.vload.push_back("const " + vt + " a_" + q.name + " = " + raw + "[cj_u];");
  }
  if (q.dtype == DType::Float16) {
    // Converted a vector at a time (half.cuh's h2f_vec: one NaN test per
    // vector), after every input's load: the test is a branch, and a load
    // behind it waited for the one before (x*0.5 + y at 0.80 of a copy, H200).
    k.vconvert.push_back("float cjh_" + q.name + "[" + std::to_string(k.l.vec) + "];");
    k.vconvert.push_back("cj::h2f_vec(a_" + q.name + ", cjh_" + q.name + ");");
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
  const std::string p = "reinterpret_cast<" + vec_type(v.dtype, k.l.vec) + "*>(" + ptr + ")";
  k.vstore.push_back(as_words(v.dtype, k.l.vec) ? "cj::vstore(" + p + " + cj_kv, " + vec + ");" : p + "[cj_kv] = " + vec + ";");
}

std::string describe(const KernelLayout& l) {
  return l.vec > 1 ? "contiguous, " + std::to_string(l.vec) + " per vector" : "contiguous";
}

std::string render(const KernelParts& k, std::map<std::string, std::string>& vars) {
  if (k.l.vec == 1) return "kernel_contiguous.cu";
  vars["VEC"] = std::to_string(k.l.vec);
  vars["VSTEPS"] = std::to_string(vector_steps(k.l));
  vars["VRAW"] = join_text(k.vraw, "\n");
  vars["VINDEX"] = k.uses_index ? "const cj_idx cj_k = cj_kv * " + std::to_string(k.l.vec) + " + cj_j;" : "";
  std::vector<std::string> lines = k.vload;
  lines.insert(lines.end(), k.vconvert.begin(), k.vconvert.end());
  vars["VLOAD"] = join_text(lines, "\n");
  vars["VELEM"] = join_text(k.velem, "\n");
  vars["VSTORE_ELEM"] = join_text(k.vstore_elem, "\n");
  vars["VSTORE"] = join_text(k.vstore, "\n");
  return "kernel_vector.cu";
}

// One step of vector_steps vectors a thread, a block per `block` threads up to
// the device's cap (the kernel's grid-stride loop covers the rest).
LaunchGrid grid(const LaunchPlan& plan, int block, unsigned max_grid) {
  const std::int64_t vectors = (plan.n + plan.layout.vec - 1) / plan.layout.vec;
  const std::int64_t threads = (vectors + vector_steps(plan.layout) - 1) / vector_steps(plan.layout);
  const std::int64_t blocks = (threads + block - 1) / block;
  LaunchGrid g;
  g.block = static_cast<unsigned>(block);
  g.grid = static_cast<unsigned>(std::min<std::int64_t>(blocks, max_grid));
  return g;
}

}  // namespace

extern const LayoutCodegen kContiguousCodegen = {KernelLayout::Kind::Contiguous, input, output, describe, render, grid};

}  // namespace cujit

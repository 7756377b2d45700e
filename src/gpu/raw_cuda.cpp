#include "gpu/raw_cuda.hpp"

#include <fmt/format.h>

#include "lang/check.hpp"
#include "lang/check.hpp"
#include "gpu/codegen.hpp"
#include "core/fail.hpp"
#include "core/names.hpp"

namespace cujit {

std::string raw_cuda_type(DType t) {
  switch (t) {
#define DTYPE(Id, name, size, Host, Compute, Store, Gen, Cuda) \
  case DType::Id:                                               \
    return #Cuda;
#include "core/dtypes.def"
#undef DTYPE
  }
  return "?";
}

std::string raw_cuda_id(const RawCudaKernel& k) {
  std::string s = "raw-cuda.1\n" + k.operation + "\n--preamble--\n" + k.preamble + "\n--typedefs--\n";
  for (const auto& [name, t] : k.typedefs) s += name + "=" + std::string(dtype_name(t)) + ";";
  return s;
}

namespace {
// The kernel's parameters, each under cujit's own name (cj_a<slot>) so that no
// user name can clash, and each operand's slot.
std::vector<std::string> raw_params(const std::vector<ArgSlot>& sig, const std::string& kernel_name, std::vector<int>& in_slot,
                                    std::vector<int>& out_slot) {
  std::vector<std::string> params;
  for (std::size_t s = 0; s < sig.size(); ++s) {
    const ArgSlot& a = sig[s];
    std::string n = "cj_a" + std::to_string(s);
    switch (a.kind) {
      case ArgSlot::Kind::Output:
        params.push_back(raw_cuda_type(a.dtype) + "* __restrict__ " + n);
        out_slot[static_cast<std::size_t>(a.operand)] = static_cast<int>(s);
        break;
      case ArgSlot::Kind::Input:
      case ArgSlot::Kind::RawData:
        params.push_back("const " + raw_cuda_type(a.dtype) + "* " + n);
        in_slot[static_cast<std::size_t>(a.operand)] = static_cast<int>(s);
        break;
      case ArgSlot::Kind::InputValue:
        params.push_back("const " + raw_cuda_type(a.dtype) + " " + n);
        in_slot[static_cast<std::size_t>(a.operand)] = static_cast<int>(s);
        break;
      case ArgSlot::Kind::Size: params.push_back("const long long " + n); break;
      case ArgSlot::Kind::Count: params.push_back("const long long cj_n"); break;
      case ArgSlot::Kind::Layout: params.push_back("const cj_layout cj_l"); break;
      case ArgSlot::Kind::Error: fail(ErrorCode::Internal, "raw CUDA kernel '{}' with an error slot", kernel_name);
    }
  }
  return params;
}
}  // namespace

std::string render_raw_cuda(const RawCudaKernel& k, const Program& p, const KernelLayout& l, const std::string& kernel_name) {
  check_source_names(p, kernel_name);
  for (const auto& td : k.typedefs) check_name(td.first, "type placeholder");
  const std::vector<ArgSlot> sig = kernel_signature(p, l);
  // The planner never gives raw kernels a Rows or Tiles layout (GpuProgram passes rows = false).
  if (l.kind == KernelLayout::Kind::Rows || l.kind == KernelLayout::Kind::Tiles)
    fail(ErrorCode::Internal, "raw CUDA kernels have no rows or tiles layout, got {}", l.key_string());
  const bool strided = l.kind == KernelLayout::Kind::Strided;
  bool half = false, bf16 = false, cplx = false;
  auto note = [&](DType t) {
    half = half || t == DType::Float16;
    bf16 = bf16 || t == DType::BFloat16;
    cplx = cplx || is_complex(t);
  };
  for (const Param& q : p.inputs) note(q.dtype);
  for (const Var& v : p.outputs) note(v.dtype);
  for (const auto& td : k.typedefs) note(td.second);

  std::vector<int> in_slot(p.inputs.size(), -1), out_slot(p.outputs.size(), -1);
  const std::vector<std::string> params = raw_params(sig, kernel_name, in_slot, out_slot);
  auto arg = [](int s) { return "cj_a" + std::to_string(s); };

  // Strided operands' rows in the layout argument: outputs first, then inputs.
  int nstrided = 0;
  std::vector<int> out_row(p.outputs.size(), -1), in_row(p.inputs.size(), -1);
  for (std::size_t o = 0; o < p.outputs.size(); ++o)
    if (l.outputs[o] == Access::Strided) out_row[o] = nstrided++;
  for (std::size_t q = 0; q < p.inputs.size(); ++q)
    if (l.inputs[q] == Access::Strided) in_row[q] = nstrided++;

  std::string body;
  for (std::size_t q = 0; q < p.inputs.size(); ++q) {
    const Param& in = p.inputs[q];
    const std::string t = raw_cuda_type(in.dtype);
    const std::string a = arg(in_slot[q]);
    switch (l.inputs[q]) {
      case Access::Raw: body += fmt::format("    const {}* const {} = {};\n", t, in.name, a); break;
      case Access::Value: body += fmt::format("    const {} {} = {};\n", t, in.name, a); break;
      case Access::Uniform: body += fmt::format("    const {} {} = {}[0];\n", t, in.name, a); break;
      case Access::Contig: body += fmt::format("    const {} {} = {}[cj_k];\n", t, in.name, a); break;
      case Access::Strided: body += fmt::format("    const {} {} = cj_at({}, cj_o[{}]);\n", t, in.name, a, in_row[q]); break;
      case Access::RowScalar:
      case Access::Tiled: break;  // rows and tiles layouts only, refused above
    }
  }
  for (std::size_t o = 0; o < p.outputs.size(); ++o) {
    const Var& v = p.outputs[o];
    const std::string a = arg(out_slot[o]);
    if (l.outputs[o] == Access::Strided)
      body += fmt::format("    {}& {} = cj_at({}, cj_o[{}]);\n", raw_cuda_type(v.dtype), v.name, a, out_row[o]);
    else
      body += fmt::format("    {}& {} = {}[cj_k];\n", raw_cuda_type(v.dtype), v.name, a);
  }

  std::string src = fmt::format("// ==== cujit raw CUDA kernel {} ====\n// layout: {}\n", kernel_name, l.key_string());
  if (half) src += "#include <cuda_fp16.h>\n";
  if (bf16) src += "#include <cuda_bf16.h>\n";
  if (cplx) src += "#include <cuda/std/complex>\n";
  for (const auto& [name, t] : k.typedefs) src += fmt::format("typedef {} {};\n", raw_cuda_type(t), name);
  src += "\n// ---- preamble ----\n" + k.preamble + "\n// ---- end of preamble ----\n\n";
  src += "template <class T, class O> __device__ __forceinline__ T& cj_at(T* p, O off) {\n"
         "  return *reinterpret_cast<T*>(reinterpret_cast<char*>(p) + off);\n}\n"
         "template <class T, class O> __device__ __forceinline__ const T& cj_at(const T* p, O off) {\n"
         "  return *reinterpret_cast<const T*>(reinterpret_cast<const char*>(p) + off);\n}\n\n";
  const char* index_t = l.index64 ? "unsigned long long" : "unsigned int";
  const char* offset_t = l.index64 ? "long long" : "int";
  // The Layout argument's struct, as kernel_signature documents it: 32-bit
  // layouts carry each extent's divisor constants too.
  if (strided && l.index64)
    src += fmt::format("struct cj_layout {{\n  unsigned long long shape[{0}];\n  long long stride[{1}][{0}];\n}};\n\n", l.ndim,
                       nstrided);
  else if (strided)
    src += fmt::format(
        "struct cj_layout {{\n  unsigned int shape[{0}], magic[{0}], shift[{0}];\n  int stride[{1}][{0}];\n}};\n\n", l.ndim,
        nstrided);
  std::string joined;
  for (std::size_t s = 0; s < params.size(); ++s) joined += (s ? ", " : "") + params[s];
  src += fmt::format("extern \"C\" __global__ void {}({}) {{\n", kernel_name, joined);
  src += fmt::format("  typedef {} cj_idx;\n", index_t);
  src += "  const cj_idx cj_count = (cj_idx)cj_n;\n  const cj_idx cj_step = (cj_idx)blockDim.x * gridDim.x;\n";
  src += "  for (cj_idx cj_k = (cj_idx)blockIdx.x * blockDim.x + threadIdx.x; cj_k < cj_count; cj_k += cj_step) {\n";
  if (strided) {
    src += fmt::format("    {} cj_o[{}] = {{}};\n", offset_t, nstrided);
    src += "    cj_idx cj_rest = cj_k;\n";
    src += fmt::format("    for (int cj_d = {} - 1; cj_d > 0; --cj_d) {{\n", l.ndim);
    src += l.index64 ? "      const cj_idx cj_q = cj_rest / cj_l.shape[cj_d];\n"
                     : "      const cj_idx cj_q = (__umulhi(cj_rest, cj_l.magic[cj_d]) + cj_rest) >> cj_l.shift[cj_d];\n";
    src += "      const cj_idx cj_c = cj_rest - cj_q * cj_l.shape[cj_d];\n      cj_rest = cj_q;\n";
    src += fmt::format("      for (int cj_s = 0; cj_s < {}; ++cj_s) cj_o[cj_s] += ({})cj_c * cj_l.stride[cj_s][cj_d];\n    }}\n",
                       nstrided, offset_t);
    src += fmt::format("    for (int cj_s = 0; cj_s < {}; ++cj_s) cj_o[cj_s] += ({})cj_rest * cj_l.stride[cj_s][0];\n", nstrided,
                       offset_t);
  }
  src += "    const long long i = (long long)cj_k;\n    const long long n = cj_n;\n";
  src += body;
  src += "    (void)i;\n    (void)n;\n";
  src += "    {\n// ---- operation ----\n" + k.operation + "\n// ---- end of operation ----\n    }\n  }\n}\n";
  return src;
}

}  // namespace cujit

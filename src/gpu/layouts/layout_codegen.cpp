#include "gpu/layouts/layout_codegen.hpp"

#include <algorithm>

#include "core/fail.hpp"
#include "gpu/templates.hpp"

namespace cujit {

extern const LayoutCodegen kContiguousCodegen, kStridedCodegen, kRowsCodegen, kTilesCodegen;

const LayoutCodegen& layout_codegen(KernelLayout::Kind kind) {
  // The list of layouts' GPU halves; src/plan/layouts/layout_rule.cpp lists their plan halves.
  static const LayoutCodegen* const kUnits[] = {&kContiguousCodegen, &kStridedCodegen, &kRowsCodegen, &kTilesCodegen};
  for (const LayoutCodegen* u : kUnits)
    if (u->kind == kind) return *u;
  fail(ErrorCode::Internal, "no code generation for layout kind {}", static_cast<int>(kind));
}

LaunchGrid thread_grid(std::int64_t threads, int block, unsigned max_grid) {
  LaunchGrid g;
  g.block = static_cast<unsigned>(block);
  g.grid = static_cast<unsigned>(std::min<std::int64_t>((threads + block - 1) / block, max_grid));
  return g;
}

std::string join_text(const std::vector<std::string>& v, const std::string& sep) {
  std::string s;
  for (std::size_t k = 0; k < v.size(); ++k) s += (k ? sep : "") + v[k];
  return s;
}

std::string vec_type(DType t, int vec) {
  std::size_t bytes = static_cast<std::size_t>(vec) * dtype_size(t);
  return "cj::vec<" + stype(t) + ", " + std::to_string(vec) + ", " + std::to_string(std::min<std::size_t>(16, bytes)) + ">";
}

void layout_struct_vars(const KernelParts& k, int nd, bool rows, std::map<std::string, std::string>& vars) {
  const std::string n = std::to_string(nd), lead = rows ? (k.l.index64 ? "unsigned long long inner, rows;\n" : "unsigned int inner, rows;\n") : "";
  const std::string srows =
      "[" + std::to_string(k.strided_names.size()) + "][" + n + "];  // bytes; rows: " + join_text(k.strided_names, ", ");
  vars["NSTRIDED"] = std::to_string(k.strided_names.size());
  vars["OFFSET_T"] = k.l.index64 ? "long long" : "int";
  if (k.l.index64) {
    vars["LAYOUT_FIELDS"] = lead + "unsigned long long shape[" + n + "];\nlong long stride" + srows;
    vars["DIVIDE"] = "const cj_idx cj_q = cj_rest / cj_l.shape[cj_d];";
  } else {
    // Division by an extent as a multiply-high and a shift (n < 2^31): see pack_layout_arg.
    vars["LAYOUT_FIELDS"] = lead + "unsigned int shape[" + n + "];\nunsigned int magic[" + n + "];\nunsigned int shift[" + n +
                            "];\nint stride" + srows;
    vars["DIVIDE"] = "const cj_idx cj_q = (__umulhi(cj_rest, cj_l.magic[cj_d]) + cj_rest) >> cj_l.shift[cj_d];";
  }
}

std::string offsets_text(const std::string& rest, const std::string& top, const std::map<std::string, std::string>& vars) {
  // The piece's leading comment lines document it and stay out of the kernel.
  std::string piece = template_text("index.cuh");
  while (piece.compare(0, 2, "//") == 0) piece.erase(0, piece.find('\n') + 1);
  std::map<std::string, std::string> v = {
      {"REST", rest}, {"TOP", top}, {"DIVIDE", vars.at("DIVIDE")}, {"NSTRIDED", vars.at("NSTRIDED")}};
  std::string out = render_template(piece, v);
  while (!out.empty() && out.back() == '\n') out.pop_back();
  return out;
}

}  // namespace cujit

// The byte offsets cj_o[s] of every strided operand at the multi-index of the
// flat index {{REST}} over the dimensions {{TOP}}..0 of cj_l (the dimensions
// after TOP are the caller's); pasted into kernel_strided.cu, kernel_rows.cu
// and kernel_tiles.cu as {{OFFSETS}} (src/gpu/layouts/layout_codegen.cpp renders it;
// these comment lines stay out). cj_o starts at the caller's offsets.
cj_idx cj_rest = {{REST}};
#pragma unroll
for (int cj_d = {{TOP}}; cj_d > 0; --cj_d) {
  {{DIVIDE}}
  const cj_idx cj_c = cj_rest - cj_q * cj_l.shape[cj_d];
  cj_rest = cj_q;
#pragma unroll
  for (int cj_s = 0; cj_s < {{NSTRIDED}}; ++cj_s) cj_o[cj_s] += (cj_off)cj_c * cj_l.stride[cj_s][cj_d];
}
#pragma unroll
for (int cj_s = 0; cj_s < {{NSTRIDED}}; ++cj_s) cj_o[cj_s] += (cj_off)cj_rest * cj_l.stride[cj_s][0];

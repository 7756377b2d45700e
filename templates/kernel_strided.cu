{{HEADER}}

{{HELPERS}}

{{ELEMENT}}

// Strided layout: extents and byte strides come by value. The multi-index of
// an element is computed once and gives the offset of every strided operand.
struct cj_layout {
  {{LAYOUT_FIELDS}}
};

extern "C" __global__ void {{KERNEL_NAME}}({{PARAMS}}) {
  typedef {{INDEX_T}} cj_idx;
  typedef {{OFFSET_T}} cj_off;
  const cj_idx cj_count = (cj_idx)cj_n;
  const cj_idx cj_step = (cj_idx)blockDim.x * gridDim.x;
  {{SETUP}}
  for (cj_idx cj_k = (cj_idx)blockIdx.x * blockDim.x + threadIdx.x; cj_k < cj_count; cj_k += cj_step) {
    cj_off cj_o[{{NSTRIDED}}];
#pragma unroll
    for (int cj_s = 0; cj_s < {{NSTRIDED}}; ++cj_s) cj_o[cj_s] = 0;
    {{OFFSETS}}
    {{LOAD}}
    {{CALL}}
    {{STORE}}
  }
}

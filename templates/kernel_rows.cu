{{HEADER}}

{{HELPERS}}

{{ELEMENT}}

// Rows layout: rows along an inner dimension in which every array operand is
// contiguous or (one element per row) constant. x of the grid walks a row in
// aligned vectors of {{VEC}} elements, y the rows; a row's byte offsets come
// from its multi-index once per row, so no element divides. The last
// inner % {{VEC}} elements of a row go one at a time.
struct cj_layout {
  {{LAYOUT_FIELDS}}
};

extern "C" __global__ void {{KERNEL_NAME}}({{PARAMS}}) {
  typedef {{INDEX_T}} cj_idx;
  typedef {{OFFSET_T}} cj_off;
  const cj_idx cj_inner = (cj_idx)cj_l.inner;
  const cj_idx cj_rows = (cj_idx)cj_l.rows;
  const cj_idx cj_nvec = cj_inner / {{VEC}};
  const cj_idx cj_col = (cj_idx)blockIdx.x * blockDim.x + threadIdx.x;
  const cj_idx cj_cstep = (cj_idx)blockDim.x * gridDim.x;
  const cj_idx cj_rstep = (cj_idx)blockDim.y * gridDim.y;
  {{SETUP}}
  for (cj_idx cj_row = (cj_idx)blockIdx.y * blockDim.y + threadIdx.y; cj_row < cj_rows; cj_row += cj_rstep) {
    cj_off cj_o[{{NSTRIDED}}];
#pragma unroll
    for (int cj_s = 0; cj_s < {{NSTRIDED}}; ++cj_s) cj_o[cj_s] = 0;
    {{OFFSETS}}
    {{ROW}}
    for (cj_idx cj_kv = cj_col; cj_kv < cj_nvec; cj_kv += cj_cstep) {
      {{VLOAD}}
#pragma unroll
      for (int cj_j = 0; cj_j < {{VEC}}; ++cj_j) {
        {{VINDEX}}
        {{VELEM}}
        {{CALL}}
        {{VSTORE_ELEM}}
      }
      {{VSTORE}}
    }
    for (cj_idx cj_kc = cj_nvec * {{VEC}} + cj_col; cj_kc < cj_inner; cj_kc += cj_cstep) {
      {{INDEX}}
      {{LOAD}}
      {{CALL}}
      {{STORE}}
    }
  }
}

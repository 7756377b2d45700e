{{HEADER}}

{{HELPERS}}

{{ELEMENT}}

// Contiguous layout, {{VEC}} elements per step: every array operand moves as
// aligned vectors (the host checked the alignment of each pointer); the last
// n % {{VEC}} elements go one at a time.
extern "C" __global__ void {{KERNEL_NAME}}({{PARAMS}}) {
  typedef {{INDEX_T}} cj_idx;
  const cj_idx cj_count = (cj_idx)cj_n;
  const cj_idx cj_step = (cj_idx)blockDim.x * gridDim.x;
  const cj_idx cj_first = (cj_idx)blockIdx.x * blockDim.x + threadIdx.x;
  {{SETUP}}
  const cj_idx cj_nvec = cj_count / {{VEC}};
  for (cj_idx cj_kv = cj_first; cj_kv < cj_nvec; cj_kv += cj_step) {
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
  for (cj_idx cj_k = cj_nvec * {{VEC}} + cj_first; cj_k < cj_count; cj_k += cj_step) {
    {{LOAD}}
    {{CALL}}
    {{STORE}}
  }
}

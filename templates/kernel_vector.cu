{{HEADER}}

{{HELPERS}}

{{ELEMENT}}

// Contiguous layout, {{VEC}} elements per vector: every array operand moves as
// aligned vectors (the host checked the alignment of each pointer); the last
// n % {{VEC}} elements go one at a time. Each step a thread takes {{VSTEPS}} vector(s),
// cj_step apart, all loaded before any is computed (the host picks the count:
// gpu/layouts/contiguous.cpp's vector_steps).
extern "C" __global__ void {{KERNEL_NAME}}({{PARAMS}}) {
  typedef {{INDEX_T}} cj_idx;
  const cj_idx cj_count = (cj_idx)cj_n;
  const cj_idx cj_step = (cj_idx)blockDim.x * gridDim.x;
  const cj_idx cj_first = (cj_idx)blockIdx.x * blockDim.x + threadIdx.x;
  {{SETUP}}
  const cj_idx cj_nvec = cj_count / {{VEC}};
  for (cj_idx cj_kv0 = cj_first; cj_kv0 < cj_nvec; cj_kv0 += {{VSTEPS}} * cj_step) {
    {{VRAW}}
#pragma unroll
    for (int cj_u = 0; cj_u < {{VSTEPS}}; ++cj_u) {
      const cj_idx cj_kv = cj_kv0 + cj_u * cj_step;
      if (cj_kv >= cj_nvec) break;
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
  }
  for (cj_idx cj_k = cj_nvec * {{VEC}} + cj_first; cj_k < cj_count; cj_k += cj_step) {
    {{LOAD}}
    {{CALL}}
    {{STORE}}
  }
}

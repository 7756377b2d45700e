{{HEADER}}

{{HELPERS}}

{{ELEMENT}}

// Contiguous layout: element cj_k of every array operand is p[cj_k].
extern "C" __global__ void {{KERNEL_NAME}}({{PARAMS}}) {
  typedef {{INDEX_T}} cj_idx;
  const cj_idx cj_count = (cj_idx)cj_n;
  const cj_idx cj_step = (cj_idx)blockDim.x * gridDim.x;
  {{SETUP}}
  for (cj_idx cj_k = (cj_idx)blockIdx.x * blockDim.x + threadIdx.x; cj_k < cj_count; cj_k += cj_step) {
    {{LOAD}}
    {{CALL}}
    {{STORE}}
  }
}

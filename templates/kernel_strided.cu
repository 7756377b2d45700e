{{HEADER}}

{{HELPERS}}

{{ELEMENT}}

// Strided layout: extents and byte strides come by value. The multi-index of
// an element is computed once and gives the offset of every strided operand.
struct cj_layout {
  {{LAYOUT_FIELDS}}
};

// Each step a thread takes {{UNROLL}} elements, cj_step apart: it computes all of
// them, their loads first, keeping their values and offsets, then stores them
// all (gpu/layouts/strided.cpp says why). The pointers are not __restrict__,
// so only this order puts several loads in flight.
extern "C" __global__ void {{KERNEL_NAME}}({{PARAMS}}) {
  typedef {{INDEX_T}} cj_idx;
  typedef {{OFFSET_T}} cj_off;
  const cj_idx cj_count = (cj_idx)cj_n;
  const cj_idx cj_step = (cj_idx)blockDim.x * gridDim.x;
  {{SETUP}}
  for (cj_idx cj_k0 = (cj_idx)blockIdx.x * blockDim.x + threadIdx.x; cj_k0 < cj_count; cj_k0 += {{UNROLL}} * cj_step) {
    // The step's elements cj_k0 + u * cj_step, u < cj_m, counted down from
    // cj_left so that no index passes cj_count (nor wraps) whatever the grid.
    cj_idx cj_left = cj_count - cj_k0;
    int cj_m = 1;
#pragma unroll
    for (int cj_u = 1; cj_u < {{UNROLL}}; ++cj_u)
      if (cj_left > cj_step) cj_left -= cj_step, cj_m = cj_u + 1;
    {{KEEP}}
    // An element past the step's cj_m computes element cj_k0 again and stores
    // nothing: no branch between the loads, so that they all issue together.
#pragma unroll
    for (int cj_u = 0; cj_u < {{UNROLL}}; ++cj_u) {
      const cj_idx cj_k = cj_u < cj_m ? cj_k0 + cj_u * cj_step : cj_k0;
      cj_off cj_o[{{NSTRIDED}}];
#pragma unroll
      for (int cj_s = 0; cj_s < {{NSTRIDED}}; ++cj_s) cj_o[cj_s] = 0;
      {{OFFSETS}}
      {{LOAD}}
      {{CALL}}
      {{SAVE}}
    }
#pragma unroll
    for (int cj_u = 0; cj_u < {{UNROLL}}; ++cj_u) {
      if (cj_u >= cj_m) break;
      {{RESTORE}}
      {{STORE}}
    }
    if (cj_left <= cj_step) break;  // the next step's first element is past cj_count
  }
}

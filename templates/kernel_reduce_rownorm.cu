{{HEADER}}

{{HELPERS}}

{{FUNCTIONS}}

// A row that fits on chip, reduced and mapped in one pass: a block per row
// holds the row in registers (ITEMS logical vectors per thread), takes its
// mean and then the sum of squared deviations from those registers (the
// exact two-pass formula, at the cost of one read), and writes the epilogue
// of every element: one read and one write of memory. FULL: every row is
// exactly THREADS x ITEMS x VEC long, so no lane checks its index (on an
// H200 this kernel is bound by instructions, not by memory).
extern "C" __global__ void __launch_bounds__({{THREADS}}) {{KERNEL_NAME}}(
    const cj_in cj_p, cj_out_t* __restrict__ cj_out, const long long cj_rows, const long long cj_len) {
  enum { THREADS = {{THREADS}}, ITEMS = {{ITEMS}}, VEC = {{VEC}}, FULL = {{FULL}} };
  typedef cj::red::sum<cj_val> cj_sum;
  __shared__ cj_val cj_smem[32];
  for (long long cj_row = blockIdx.x; cj_row < cj_rows; cj_row += gridDim.x) {
    const long long cj_base = cj_row * cj_len;
    cj_val cj_x[ITEMS * VEC];
    cj_val cj_s[ITEMS * VEC];
#pragma unroll
    for (int cj_i = 0; cj_i < ITEMS; ++cj_i) {
      const long long cj_j = ((long long)threadIdx.x + cj_i * THREADS) * VEC;
      cj_rload(cj_p, cj_base + cj_j, cj_j, cj_len, cj_x + cj_i * VEC);
    }
#pragma unroll
    for (int cj_i = 0; cj_i < ITEMS; ++cj_i)
#pragma unroll
      for (int cj_e = 0; cj_e < VEC; ++cj_e) {
        const long long cj_j = ((long long)threadIdx.x + cj_i * THREADS) * VEC + cj_e;
        cj_s[cj_i * VEC + cj_e] = (FULL || cj_j < cj_len) ? cj_x[cj_i * VEC + cj_e] : cj_val(0);
      }
    const cj_val cj_total = cj::red::block_reduce<cj_sum>(cj::red::fold<cj_sum, ITEMS * VEC>(cj_s), cj_smem, THREADS);
    if (threadIdx.x == 0) cj_smem[0] = cj_total / (cj_val)cj_len;
    __syncthreads();
    const cj_val mean = cj_smem[0];
    __syncthreads();
#pragma unroll
    for (int cj_i = 0; cj_i < ITEMS; ++cj_i)
#pragma unroll
      for (int cj_e = 0; cj_e < VEC; ++cj_e) {
        const long long cj_j = ((long long)threadIdx.x + cj_i * THREADS) * VEC + cj_e;
        const cj_val cj_d = cj_x[cj_i * VEC + cj_e] - mean;
        cj_s[cj_i * VEC + cj_e] = (FULL || cj_j < cj_len) ? cj_d * cj_d : cj_val(0);
      }
    const cj_val cj_ss = cj::red::block_reduce<cj_sum>(cj::red::fold<cj_sum, ITEMS * VEC>(cj_s), cj_smem, THREADS);
    if (threadIdx.x == 0) cj_smem[0] = cj_ss / (cj_val)cj::red::dof(cj_len, {{DDOF}});
    __syncthreads();
    const cj_val var = cj_smem[0];
    const cj_val std = sqrt(var);
    __syncthreads();
#pragma unroll
    for (int cj_i = 0; cj_i < ITEMS; ++cj_i) {
      const long long cj_j = ((long long)threadIdx.x + cj_i * THREADS) * VEC;
      cj_wstore(cj_out, cj_base + cj_j, cj_j, cj_len, cj_x + cj_i * VEC, mean, var, std);
    }
  }
}

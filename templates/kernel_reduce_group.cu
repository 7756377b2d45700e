{{HEADER}}

{{HELPERS}}

{{FUNCTIONS}}

// Short contiguous rows: GROUP lanes of a warp per row (1 to 32), THREADS /
// GROUP rows per block step. Lane g folds logical vectors g, g+GROUP, ... of
// its row, then the group's butterfly. Every lane of a warp takes part in
// the shuffles, so the row loop is uniform across the block.
extern "C" __global__ void __launch_bounds__({{THREADS}}) {{KERNEL_NAME}}(
    const cj_in cj_p, cj_out_t* __restrict__ cj_out, const long long cj_rows, const long long cj_len) {
  enum { THREADS = {{THREADS}}, GROUP = {{GROUP}}, U = {{UNROLL}}, VEC = {{VEC}}, PER_BLOCK = THREADS / GROUP };
  const int cj_g = threadIdx.x % GROUP;
  const long long cj_nv = cj_len / VEC;
  for (long long cj_r0 = (long long)blockIdx.x * PER_BLOCK; cj_r0 < cj_rows; cj_r0 += (long long)gridDim.x * PER_BLOCK) {
    const long long cj_row = cj_r0 + threadIdx.x / GROUP;
    const bool cj_live = cj_row < cj_rows;
    const long long cj_base = cj_row * cj_len;
    cj_acc cj_a[U * VEC];
#pragma unroll
    for (int cj_e = 0; cj_e < U * VEC; ++cj_e) cj_a[cj_e] = cj_op::identity();
    if (cj_live) {
      for (long long cj_v = cj_g; cj_v < cj_nv; cj_v += U * GROUP) {
#pragma unroll
        for (int cj_u = 0; cj_u < U; ++cj_u)
          if (cj_v + cj_u * GROUP < cj_nv)
            cj_vfold(cj_p, cj_base + (cj_v + cj_u * GROUP) * VEC, (cj_v + cj_u * GROUP) * VEC, 1, cj_a + cj_u * VEC);
      }
      for (long long cj_j = cj_nv * VEC + cj_g; cj_j < cj_len; cj_j += GROUP)
        cj_a[0] = cj_op::combine(cj_a[0], cj_elem(cj_p, cj_base + cj_j, cj_j));
    }
    cj_acc cj_r = cj::red::fold<cj_op, U * VEC>(cj_a);
    cj_r = cj::red::group_reduce<cj_op>(cj_r, GROUP);
    if (cj_live && cj_g == 0) cj_store(cj_out, cj_row, cj_r, cj_len);
  }
}

{{HEADER}}

{{HELPERS}}

{{FUNCTIONS}}

// Short contiguous rows: GROUP lanes of a warp per row (1 to 32), THREADS /
// GROUP rows per block step, R such row sets per step. Lane g folds logical
// vectors g, g+GROUP, ... of its row, then the group's butterfly. With R > 1
// the plan promises at most one vector per lane: the R rows' loads are issued
// together (one 16-byte load in flight per lane held short rows to 0.6 of the
// memory's speed on an H200). Every lane of a warp takes part in the
// shuffles, so the row loop is uniform across the block.
extern "C" __global__ void __launch_bounds__({{THREADS}}) {{KERNEL_NAME}}(
    const cj_in cj_p, cj_out_t* __restrict__ cj_out, const long long cj_rows, const long long cj_len) {
  enum { THREADS = {{THREADS}}, GROUP = {{GROUP}}, U = {{UNROLL}}, VEC = {{VEC}}, R = {{ROWS_PER}}, PER_BLOCK = THREADS / GROUP };
  const int cj_g = threadIdx.x % GROUP;
  const long long cj_nv = cj_len / VEC;
  const long long cj_stride = (long long)gridDim.x * PER_BLOCK * R;
  for (long long cj_r0 = (long long)blockIdx.x * PER_BLOCK * R; cj_r0 < cj_rows; cj_r0 += cj_stride) {
    cj_acc cj_a[R][U * VEC];
#pragma unroll
    for (int cj_q = 0; cj_q < R; ++cj_q)
#pragma unroll
      for (int cj_e = 0; cj_e < U * VEC; ++cj_e) cj_a[cj_q][cj_e] = cj_op::identity();
    if (R > 1) {
      // Every row's vector is loaded before any is folded, and the tails come
      // after: a row's guard, tail loop or float16 NaN test between two rows'
      // loads held each load back until the one before had come (H200: axis
      // -1 of (2^20, 64) at 0.83 of the stream, 0.94 with the loads first).
      cj_raw cj_rv[R];
#pragma unroll
      for (int cj_q = 0; cj_q < R; ++cj_q) {
        const long long cj_row = cj_r0 + cj_q * PER_BLOCK + threadIdx.x / GROUP;
        if (cj_row < cj_rows && cj_g < cj_nv) cj_rv[cj_q] = cj_vload(cj_p, cj_row * cj_len + cj_g * VEC);
      }
#pragma unroll
      for (int cj_q = 0; cj_q < R; ++cj_q) {
        const long long cj_row = cj_r0 + cj_q * PER_BLOCK + threadIdx.x / GROUP;
        if (cj_row >= cj_rows) continue;
        if (cj_g < cj_nv) cj_vfold_raw(cj_rv[cj_q], cj_g * VEC, 1, cj_a[cj_q]);
        for (long long cj_j = cj_nv * VEC + cj_g; cj_j < cj_len; cj_j += GROUP)
          cj_a[cj_q][0] = cj_op::combine(cj_a[cj_q][0], cj_elem(cj_p, cj_row * cj_len + cj_j, cj_j));
      }
    } else {
      // One row: its U vectors a step folded as they come (loading them all
      // first ran 0.95x as fast on rows of 256 floats, and rows of 4 float16,
      // all tail, took twice as long: H200, 2026-11-29).
      const long long cj_row = cj_r0 + threadIdx.x / GROUP;
      if (cj_row < cj_rows) {
        const long long cj_base = cj_row * cj_len;
        for (long long cj_v = cj_g; cj_v < cj_nv; cj_v += U * GROUP) {
#pragma unroll
          for (int cj_u = 0; cj_u < U; ++cj_u)
            if (cj_v + cj_u * GROUP < cj_nv)
              cj_vfold(cj_p, cj_base + (cj_v + cj_u * GROUP) * VEC, (cj_v + cj_u * GROUP) * VEC, 1, cj_a[0] + cj_u * VEC);
        }
        for (long long cj_j = cj_nv * VEC + cj_g; cj_j < cj_len; cj_j += GROUP)
          cj_a[0][0] = cj_op::combine(cj_a[0][0], cj_elem(cj_p, cj_base + cj_j, cj_j));
      }
    }
#pragma unroll
    for (int cj_q = 0; cj_q < R; ++cj_q) {
      cj_acc cj_r = cj::red::fold<cj_op, U * VEC>(cj_a[cj_q]);
      cj_r = cj::red::group_reduce<cj_op>(cj_r, GROUP);
      const long long cj_row = cj_r0 + cj_q * PER_BLOCK + threadIdx.x / GROUP;
      if (cj_row < cj_rows && cj_g == 0) cj_store(cj_out, cj_row, cj_r, cj_len);
    }
  }
}

{{HEADER}}

{{HELPERS}}

{{FUNCTIONS}}

// The middle axis of a contiguous [A, K, B] array (B > 1), into [A, B].
// Thread (tx, ty) of a TX x TY block owns the VEC adjacent columns of logical
// vector tx of its tile and walks k = ty, ty+TY, ... of its split of K, so a
// warp reads whole rows of the tile (coalesced, 16-byte loads where aligned).
// The TY partials of a column meet in shared memory in a fixed tree. When K
// is split over S blocks (too few columns to fill the GPU), each stores its
// partials and the last block of the tile combines them in split order. As
// in the rows kernel, the decomposition depends on the shape, not the grid.
// MIN_BLOCKS is 4 but for the flat variant: float64 sums took 78 registers,
// 3 blocks of 256 per SM, and at 4 (64 registers, 8 bytes spilled) ran
// 1.12-1.18x as fast (H200: axis 0 of (2^20, 32) 0.75 -> 0.85 of the
// stream); the flat copy ran 2 % slower under the bound.
extern "C" __global__ void __launch_bounds__({{THREADS}}, {{MIN_BLOCKS}}) {{KERNEL_NAME}}(
    const cj_in cj_p, cj_out_t* __restrict__ cj_out, cj_acc* __restrict__ cj_part, unsigned* __restrict__ cj_cnt,
    const long long cj_A, const long long cj_K, const long long cj_B, const long long cj_kchunk, const int cj_S) {
  enum { TX = {{TX}}, TY = {{TY}}, THREADS = TX * TY, U = {{UNROLL}}, VEC = {{VEC}}, FLAT = {{FLAT}}, LOADS_FIRST = {{LOADS_FIRST}} };
  __shared__ cj_acc cj_smem[TY][TX * VEC];
  __shared__ int cj_flag;
  const int cj_tx = threadIdx.x % TX, cj_ty = threadIdx.x / TX;
  const long long cj_ncv = (cj_B + VEC - 1) / VEC;
  const long long cj_tiles = (cj_ncv + TX - 1) / TX;
  const long long cj_items = cj_A * cj_tiles * cj_S;
  if (FLAT) {  // the plan's promise: TY, K, A and S are 1 (the host checks)
    // One element per output (an axis of length 1, the outer rows folded
    // into the columns): a copy through the map and the post-map, U vectors
    // of columns in flight per thread, where the loop below has one (H200:
    // 0.79 of a copy's speed before, 1.01-1.03 now). A variant of its own
    // (FLAT), with no division and no fold, and without the general loop's
    // code: compiled beside it, the kernel took 70 registers for float32 and
    // 124 for float64 (3 and 2 blocks per SM).
#pragma unroll 1
    for (long long cj_w0 = blockIdx.x; cj_w0 < cj_items; cj_w0 += (long long)U * gridDim.x) {
      cj_acc cj_a[U * VEC];
#pragma unroll
      for (int cj_e = 0; cj_e < U * VEC; ++cj_e) cj_a[cj_e] = cj_op::identity();
#pragma unroll
      for (int cj_u = 0; cj_u < U; ++cj_u) {
        const long long cj_col = ((cj_w0 + (long long)cj_u * gridDim.x) * TX + cj_tx) * VEC;
        if (cj_col + VEC <= cj_B) {
          cj_vfold(cj_p, cj_col, 0, 0, cj_a + cj_u * VEC);
        } else {
#pragma unroll
          for (int cj_e = 0; cj_e < VEC; ++cj_e)
            if (cj_col + cj_e < cj_B) cj_a[cj_u * VEC + cj_e] = cj_op::combine(cj_a[cj_u * VEC + cj_e], cj_elem(cj_p, cj_col + cj_e, 0));
        }
      }
      typedef cj::vec<cj_out_t, VEC, (VEC * sizeof(cj_out_t) < 16 ? VEC * sizeof(cj_out_t) : 16)> cj_ovec;
#pragma unroll
      for (int cj_u = 0; cj_u < U; ++cj_u) {
        const long long cj_col = ((cj_w0 + (long long)cj_u * gridDim.x) * TX + cj_tx) * VEC;
        cj_ovec cj_v;
#pragma unroll
        for (int cj_e = 0; cj_e < VEC; ++cj_e) cj_v.v[cj_e] = cj_post(cj_a[cj_u * VEC + cj_e], 1);
        if (cj_col + VEC <= cj_B && reinterpret_cast<unsigned long long>(cj_out + cj_col) % sizeof(cj_ovec) == 0) {
          *reinterpret_cast<cj_ovec*>(cj_out + cj_col) = cj_v;
        } else {
#pragma unroll
          for (int cj_e = 0; cj_e < VEC; ++cj_e)
            if (cj_col + cj_e < cj_B) cj_out[cj_col + cj_e] = cj_v.v[cj_e];
        }
      }
    }
    return;
  }
  for (long long cj_w = blockIdx.x; cj_w < cj_items; cj_w += gridDim.x) {
    int cj_s;
    long long cj_tile, cj_o;
    if (TY == 1 && cj_S == 1 && cj_items < 0x7fffffffLL) {
      // One 32-bit division: with a few rows per block, three 64-bit
      // divisions cost as much as the loads.
      cj_s = 0;
      cj_o = (long long)((unsigned)cj_w / (unsigned)cj_tiles);
      cj_tile = cj_w - cj_o * cj_tiles;
    } else {
      // The tiles of a row vary fastest: blocks that run together read whole
      // rows, not the same slice of every row (H200: axis 0 of (2^18, 256),
      // two tiles of 512 bytes a row, read the first half of every row in the
      // first wave of blocks and the second in the next).
      const long long cj_q = cj_w / cj_tiles;
      cj_tile = cj_w - cj_q * cj_tiles;
      cj_o = cj_q / cj_S;
      cj_s = (int)(cj_q - cj_o * cj_S);
    }
    const long long cj_col = (cj_tile * TX + cj_tx) * VEC;
    const long long cj_klo = (long long)cj_s * cj_kchunk;
    const long long cj_khi = cj_klo + cj_kchunk < cj_K ? cj_klo + cj_kchunk : cj_K;
    cj_acc cj_a[U * VEC];
#pragma unroll
    for (int cj_e = 0; cj_e < U * VEC; ++cj_e) cj_a[cj_e] = cj_op::identity();
    if (cj_col < cj_B) {
      const long long cj_base = cj_o * cj_K * cj_B + cj_col;
      if (cj_col + VEC <= cj_B) {
        for (long long cj_k = cj_klo + cj_ty; cj_k < cj_khi; cj_k += U * TY) {
          if (LOADS_FIRST) {  // the U loads before the first fold (the host says when)
            cj_raw cj_r[U];
#pragma unroll
            for (int cj_u = 0; cj_u < U; ++cj_u)
              if (cj_k + cj_u * TY < cj_khi) cj_r[cj_u] = cj_vload(cj_p, cj_base + (cj_k + cj_u * TY) * cj_B);
#pragma unroll
            for (int cj_u = 0; cj_u < U; ++cj_u)
              if (cj_k + cj_u * TY < cj_khi) cj_vfold_raw(cj_r[cj_u], cj_k + cj_u * TY, 0, cj_a + cj_u * VEC);
          } else {
#pragma unroll
            for (int cj_u = 0; cj_u < U; ++cj_u)
              if (cj_k + cj_u * TY < cj_khi)
                cj_vfold(cj_p, cj_base + (cj_k + cj_u * TY) * cj_B, cj_k + cj_u * TY, 0, cj_a + cj_u * VEC);
          }
        }
      } else {  // the last, partial vector of columns (B % VEC != 0): one column at a time
#pragma unroll
        for (int cj_e = 0; cj_e < VEC; ++cj_e)
          if (cj_col + cj_e < cj_B)
            for (long long cj_k = cj_klo + cj_ty; cj_k < cj_khi; cj_k += TY)
              cj_a[cj_e] = cj_op::combine(cj_a[cj_e], cj_elem(cj_p, cj_base + cj_k * cj_B + cj_e, cj_k));
      }
    }
    if (TY == 1 && cj_S == 1) {  // a thread owns whole columns: no tile to combine, no barrier
      // Its VEC results stored as one vector where aligned: a warp's scalar
      // stores VEC elements apart wrote partial sectors (a length-1 axis,
      // which is all stores: float16 max of (2^26, 1) ran 0.93x as fast as rows of one).
      typedef cj::vec<cj_out_t, VEC, (VEC * sizeof(cj_out_t) < 16 ? VEC * sizeof(cj_out_t) : 16)> cj_ovec;
      cj_ovec cj_w;
#pragma unroll
      for (int cj_e = 0; cj_e < VEC; ++cj_e) {
        cj_acc cj_t[U];
#pragma unroll
        for (int cj_u = 0; cj_u < U; ++cj_u) cj_t[cj_u] = cj_a[cj_u * VEC + cj_e];
        cj_w.v[cj_e] = cj_post(cj::red::fold<cj_op, U>(cj_t), cj_K);
      }
      cj_out_t* const cj_d = cj_out + cj_o * cj_B + cj_col;
      if (cj_col + VEC <= cj_B && reinterpret_cast<unsigned long long>(cj_d) % sizeof(cj_ovec) == 0) {
        *reinterpret_cast<cj_ovec*>(cj_d) = cj_w;
      } else {
#pragma unroll
        for (int cj_e = 0; cj_e < VEC; ++cj_e)
          if (cj_col + cj_e < cj_B) cj_d[cj_e] = cj_w.v[cj_e];
      }
      continue;
    }
#pragma unroll
    for (int cj_e = 0; cj_e < VEC; ++cj_e) {
      cj_acc cj_t[U];
#pragma unroll
      for (int cj_u = 0; cj_u < U; ++cj_u) cj_t[cj_u] = cj_a[cj_u * VEC + cj_e];
      cj_smem[cj_ty][cj_tx * VEC + cj_e] = cj::red::fold<cj_op, U>(cj_t);
    }
    __syncthreads();
#pragma unroll
    for (int cj_h = TY / 2; cj_h > 0; cj_h >>= 1) {
      if (cj_ty < cj_h)
#pragma unroll
        for (int cj_e = 0; cj_e < VEC; ++cj_e)
          cj_smem[cj_ty][cj_tx * VEC + cj_e] = cj_op::combine(cj_smem[cj_ty][cj_tx * VEC + cj_e], cj_smem[cj_ty + cj_h][cj_tx * VEC + cj_e]);
      __syncthreads();
    }
    const long long cj_key = cj_o * cj_tiles + cj_tile;  // the tile's counter and partials
    if (cj_S == 1) {
      if (cj_ty == 0)
        for (int cj_e = 0; cj_e < VEC; ++cj_e)
          if (cj_col + cj_e < cj_B) cj_store(cj_out, cj_o * cj_B + cj_col + cj_e, cj_smem[0][cj_tx * VEC + cj_e], cj_K);
      __syncthreads();
      continue;
    }
    cj_acc* const cj_tp = cj_part + cj_key * cj_S * (TX * VEC);
    if (cj_ty == 0)
      for (int cj_e = 0; cj_e < VEC; ++cj_e) cj_tp[(long long)cj_s * (TX * VEC) + cj_tx * VEC + cj_e] = cj_smem[0][cj_tx * VEC + cj_e];
    if (!cj::red::last_block(cj_cnt + cj_key, (unsigned)cj_S, &cj_flag)) continue;
    {
      // Splits ty, ty + TY, ... folded in that order, each split's VEC
      // partials as one 16-byte load, where they were VEC loads of 4 bytes
      // (H200: float32 sums over axis 0 of (2^18, 256) and (2^20, 64) from
      // 0.84 to 0.89 of the read+write stream; the last blocks' combines are
      // the run's tail). Four splits' loads in flight measured slower
      // (0.85), under the same bound of 64 registers.
      cj_acc cj_r[VEC];
#pragma unroll
      for (int cj_e = 0; cj_e < VEC; ++cj_e) cj_r[cj_e] = cj_op::identity();
      for (int cj_k = cj_ty; cj_k < cj_S; cj_k += TY) {
        cj_acc cj_v[VEC];
        cj::red::load_cg_n(cj_tp + (long long)cj_k * (TX * VEC) + cj_tx * VEC, cj_v);
#pragma unroll
        for (int cj_e = 0; cj_e < VEC; ++cj_e) cj_r[cj_e] = cj_op::combine(cj_r[cj_e], cj_v[cj_e]);
      }
#pragma unroll
      for (int cj_e = 0; cj_e < VEC; ++cj_e) cj_smem[cj_ty][cj_tx * VEC + cj_e] = cj_r[cj_e];
    }
    __syncthreads();
#pragma unroll
    for (int cj_h = TY / 2; cj_h > 0; cj_h >>= 1) {
      if (cj_ty < cj_h)
#pragma unroll
        for (int cj_e = 0; cj_e < VEC; ++cj_e)
          cj_smem[cj_ty][cj_tx * VEC + cj_e] = cj_op::combine(cj_smem[cj_ty][cj_tx * VEC + cj_e], cj_smem[cj_ty + cj_h][cj_tx * VEC + cj_e]);
      __syncthreads();
    }
    if (cj_ty == 0)
      for (int cj_e = 0; cj_e < VEC; ++cj_e)
        if (cj_col + cj_e < cj_B) cj_store(cj_out, cj_o * cj_B + cj_col + cj_e, cj_smem[0][cj_tx * VEC + cj_e], cj_K);
    __syncthreads();
  }
}

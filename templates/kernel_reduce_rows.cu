{{HEADER}}

{{HELPERS}}

{{FUNCTIONS}}

// Rows of `len` contiguous elements, each cut into `nchunks` chunks of
// `chunk` elements (a whole reduction is one row). A block reduces one chunk:
// thread t folds logical vectors t, t+THREADS, ... into ACC x SLOTS
// accumulators, U vectors a step (U from the host: 4, fewer for wide
// accumulators, to keep them in registers; ACC is U but for argmin/argmax,
// whose U vectors may go round fewer slots; SLOTS is VEC, one per lane, so a
// float sum adds at most ~chunk/(THREADS*U*VEC) terms in sequence, or 1 for
// argmin/argmax, whose slots cj_vfinish turns into (value, index) pairs),
// then the block tree. With one chunk per row the block stores the result;
// otherwise it stores a partial, and the last block of the row combines the
// row's partials in index order. The decomposition depends on the shape only,
// never on the grid, which may be any size (blocks stride over the chunks):
// the bits are the same whatever grid the host picks.
extern "C" __global__ void __launch_bounds__({{THREADS}}) {{KERNEL_NAME}}(
    const cj_in cj_p, cj_out_t* __restrict__ cj_out, cj_acc* __restrict__ cj_part, unsigned* __restrict__ cj_cnt,
    const long long cj_rows, const long long cj_len, const long long cj_chunk, const int cj_nchunks) {
  enum { THREADS = {{THREADS}}, U = {{UNROLL}}, VEC = {{VEC}}, SLOTS = {{SLOTS}}, LOADG = {{LOADG}}, ACC = {{ACC_ROWS}} };
  __shared__ cj_acc cj_smem[32];
  __shared__ int cj_flag;
  const long long cj_items = cj_rows * cj_nchunks;
  for (long long cj_w = blockIdx.x; cj_w < cj_items; cj_w += gridDim.x) {
    const long long cj_row = cj_w / cj_nchunks;
    const int cj_c = (int)(cj_w - cj_row * cj_nchunks);
    const long long cj_lo = (long long)cj_c * cj_chunk;
    const long long cj_hi = cj_lo + cj_chunk < cj_len ? cj_lo + cj_chunk : cj_len;
    const long long cj_base = cj_row * cj_len + cj_lo;  // flat index of the chunk's first element
    cj_acc cj_a[ACC * SLOTS];
#pragma unroll
    for (int cj_e = 0; cj_e < ACC * SLOTS; ++cj_e) cj_a[cj_e] = cj_op::identity();
    const long long cj_nv = (cj_hi - cj_lo) / VEC;
    // Vector v + u*THREADS always goes to accumulator row u % ACC: one rule
    // for the whole steps and the last, partial one (unrolled: no indexing of
    // cj_a at run time), and a row sees its vectors in index order. The whole steps have no guards, so that their U loads are
    // issued together: a guard per vector made a branch per vector, and
    // argmax of float16 had one load in flight per thread (0.7 of the
    // memory's speed, H200). LOADG loads go before the first fold, whose
    // float16 NaN test is a branch that a later load would wait behind: all
    // U, or 1 where the host's plan has chunks of few steps (loads_first).
    long long cj_v = threadIdx.x;
    for (; cj_v + (U - 1) * THREADS < cj_nv; cj_v += U * THREADS) {
#pragma unroll
      for (int cj_g = 0; cj_g < U; cj_g += LOADG) {
        cj_raw cj_r[LOADG];
#pragma unroll
        for (int cj_u = 0; cj_u < LOADG; ++cj_u) cj_r[cj_u] = cj_vload(cj_p, cj_base + (cj_v + (cj_g + cj_u) * THREADS) * VEC);
#pragma unroll
        for (int cj_u = 0; cj_u < LOADG; ++cj_u)
          cj_vslot_raw(cj_r[cj_u], cj_lo + (cj_v + (cj_g + cj_u) * THREADS) * VEC, cj_a + (cj_g + cj_u) % ACC * SLOTS);
      }
    }
#pragma unroll
    for (int cj_u = 0; cj_u < U; ++cj_u)
      if (cj_v + cj_u * THREADS < cj_nv)
        cj_vslot(cj_p, cj_base + (cj_v + cj_u * THREADS) * VEC, cj_lo + (cj_v + cj_u * THREADS) * VEC, cj_a + cj_u % ACC * SLOTS);
    cj_vfinish(cj_p, cj_row * cj_len, cj_a);
    for (long long cj_j = cj_lo + cj_nv * VEC + threadIdx.x; cj_j < cj_hi; cj_j += THREADS)
      cj_a[0] = cj_op::combine(cj_a[0], cj_elem(cj_p, cj_row * cj_len + cj_j, cj_j));
    cj_acc cj_r = cj::red::fold<cj_op, ACC * SLOTS>(cj_a);
    cj_r = cj::red::block_reduce<cj_op>(cj_r, cj_smem, THREADS);
    if (cj_nchunks == 1) {
      if (threadIdx.x == 0) cj_store(cj_out, cj_row, cj_r, cj_len);
      continue;
    }
    if (threadIdx.x == 0) cj_part[cj_w] = cj_r;
    if (!cj::red::last_block(cj_cnt + cj_row, (unsigned)cj_nchunks, &cj_flag)) continue;
    cj_r = cj_op::identity();
    // Unrolled, so that a thread's loads of the partials are in flight together.
#pragma unroll 4
    for (int cj_k = threadIdx.x; cj_k < cj_nchunks; cj_k += THREADS)
      cj_r = cj_op::combine(cj_r, cj::red::load_cg(cj_part + cj_row * cj_nchunks + cj_k));
    cj_r = cj::red::block_reduce<cj_op>(cj_r, cj_smem, THREADS);
    if (threadIdx.x == 0) cj_store(cj_out, cj_row, cj_r, cj_len);
  }
}

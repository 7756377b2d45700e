{{HEADER}}

{{HELPERS}}

{{ELEMENT}}

// Tiles layout: 32x32 tiles of the last two dimensions, a block of 32x8
// threads each. Tiled inputs (contiguous down a column) are read a column
// per warp into shared memory (a padded row, against bank conflicts); then
// every element of the tile is computed a row per warp, so outputs and the
// other inputs are read and written along their contiguous last dimension.
// Offsets of the outer dimensions are found once per tile.
struct cj_layout {
  {{LAYOUT_FIELDS}}
};

extern "C" __global__ void {{KERNEL_NAME}}({{PARAMS}}) {
  typedef {{INDEX_T}} cj_idx;
  typedef {{OFFSET_T}} cj_off;
  {{TILES}}
  const cj_idx cj_nr = (cj_idx)cj_l.shape[{{NDIM}} - 2], cj_nc = (cj_idx)cj_l.shape[{{NDIM}} - 1];
  cj_idx cj_nb = 1;
#pragma unroll
  for (int cj_d = 0; cj_d < {{NDIM}} - 2; ++cj_d) cj_nb *= (cj_idx)cj_l.shape[cj_d];
  const cj_idx cj_ntr = (cj_nr + 31) / 32, cj_ntc = (cj_nc + 31) / 32;
  const unsigned cj_tx = threadIdx.x, cj_ty = threadIdx.y;
  {{SETUP}}
  for (cj_idx cj_b = blockIdx.z; cj_b < cj_nb; cj_b += gridDim.z) {
    cj_off cj_o[{{NSTRIDED}}];
#pragma unroll
    for (int cj_s = 0; cj_s < {{NSTRIDED}}; ++cj_s) cj_o[cj_s] = 0;
    if ({{NDIM}} > 2) {
      cj_idx cj_rest = cj_b;
#pragma unroll
      for (int cj_d = {{NDIM}} - 3; cj_d > 0; --cj_d) {
        {{DIVIDE}}
        const cj_idx cj_c = cj_rest - cj_q * cj_l.shape[cj_d];
        cj_rest = cj_q;
#pragma unroll
        for (int cj_s = 0; cj_s < {{NSTRIDED}}; ++cj_s) cj_o[cj_s] += (cj_off)cj_c * cj_l.stride[cj_s][cj_d];
      }
#pragma unroll
      for (int cj_s = 0; cj_s < {{NSTRIDED}}; ++cj_s) cj_o[cj_s] += (cj_off)cj_rest * cj_l.stride[cj_s][0];
    }
    for (cj_idx cj_tr = blockIdx.y; cj_tr < cj_ntr; cj_tr += gridDim.y) {
      for (cj_idx cj_tc = blockIdx.x; cj_tc < cj_ntc; cj_tc += gridDim.x) {
        const cj_idx cj_r0 = cj_tr * 32, cj_c0 = cj_tc * 32;
#pragma unroll
        for (unsigned cj_j = 0; cj_j < 32; cj_j += 8) {
          const cj_idx cj_r = cj_r0 + cj_tx, cj_c = cj_c0 + cj_ty + cj_j;
          if (cj_r < cj_nr && cj_c < cj_nc) {
            {{TILE_LOAD}}
          }
        }
        __syncthreads();
#pragma unroll
        for (unsigned cj_j = 0; cj_j < 32; cj_j += 8) {
          const cj_idx cj_r = cj_r0 + cj_ty + cj_j, cj_c = cj_c0 + cj_tx;
          if (cj_r < cj_nr && cj_c < cj_nc) {
            {{INDEX}}
            {{LOAD}}
            {{CALL}}
            {{STORE}}
          }
        }
        __syncthreads();
      }
    }
  }
}

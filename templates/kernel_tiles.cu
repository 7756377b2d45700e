{{HEADER}}

{{HELPERS}}

{{ELEMENT}}

// Tiles layout: tiles of T = 16*V elements a side (V = {{V}}) over the last
// two dimensions, 256 threads a tile, each moving a V x V block; the grid
// walks the tiles (1-D, batches included), each tile's byte offsets found
// once. A tiled input (contiguous down a column, e.g. x.T) is read in vectors
// of {{VL}} down its columns (16 threads a column), transposed in registers
// and stored into shared memory as vectors of a row; the outputs and other
// inputs are then read and written in vectors of {{VS}} along the rows (16
// threads a row). In shared memory, row r holds its 16 vectors in the order
// v ^ (r / V): the 8 or 16 threads of one shared-memory wavefront then hit
// distinct banks both when a column's threads store and when a row's load.
// Edge tiles go element by element where a vector would leave the array.
struct cj_layout {
  {{LAYOUT_FIELDS}}
};

template <class S, int N> struct cj_tv {
  typedef cj::vec<S, N, (N * (int)sizeof(S) < 16 ? N * (int)sizeof(S) : 16)> t;
};

// Phase 1 for one tiled input: this thread's V x V block, whose first element
// (row r, column c of the array) is at p, columns st_c bytes apart, stored
// transposed at rows V*lr.., vector lc of the tile.
template <class S, int V, int VL, class I, class O>
__device__ __forceinline__ void cj_tile_in(typename cj_tv<S, V>::t (*tile)[16], const char* p, const O st_c, const I r,
                                           const I nr, const I c, const I nc, const unsigned lr, const unsigned lc) {
  S v[V][V];  // [column][row]
#pragma unroll
  for (int i = 0; i < V; ++i) {
    const char* q = p + (O)i * st_c;
    if (c + i < nc && r + V <= nr) {
#pragma unroll
      for (int k = 0; k < V; k += VL) {
        const typename cj_tv<S, VL>::t w = *reinterpret_cast<const typename cj_tv<S, VL>::t*>(q + k * (int)sizeof(S));
#pragma unroll
        for (int e = 0; e < VL; ++e) v[i][k + e] = w.v[e];
      }
    } else {
#pragma unroll
      for (int j = 0; j < V; ++j) v[i][j] = c + i < nc && r + j < nr ? reinterpret_cast<const S*>(q)[j] : S();
    }
  }
#pragma unroll
  for (int j = 0; j < V; ++j) {
    typename cj_tv<S, V>::t w;
#pragma unroll
    for (int i = 0; i < V; ++i) w.v[i] = v[i][j];
    tile[V * lr + j][lc ^ lr] = w;
  }
}

// Phase 2: the cn (<= V) elements of a row from p, st bytes apart; in vectors
// of VS when all V are there and the row is contiguous.
template <class S, int V, int VS, class O>
__device__ __forceinline__ typename cj_tv<S, V>::t cj_row_in(const char* p, const O st, const int cn) {
  typename cj_tv<S, V>::t w;
  if (cn == V && st == (O)sizeof(S)) {
#pragma unroll
    for (int k = 0; k < V; k += VS) {
      const typename cj_tv<S, VS>::t u = *reinterpret_cast<const typename cj_tv<S, VS>::t*>(p + k * (int)sizeof(S));
#pragma unroll
      for (int e = 0; e < VS; ++e) w.v[k + e] = u.v[e];
    }
  } else {
#pragma unroll
    for (int i = 0; i < V; ++i) w.v[i] = i < cn ? *reinterpret_cast<const S*>(p + (O)i * st) : S();
  }
  return w;
}

template <class S, int V, int VS>
__device__ __forceinline__ void cj_row_out(char* p, const typename cj_tv<S, V>::t& w, const int cn) {
  if (cn == V) {
#pragma unroll
    for (int k = 0; k < V; k += VS) {
      typename cj_tv<S, VS>::t u;
#pragma unroll
      for (int e = 0; e < VS; ++e) u.v[e] = w.v[k + e];
      *reinterpret_cast<typename cj_tv<S, VS>::t*>(p + k * (int)sizeof(S)) = u;
    }
  } else {
#pragma unroll
    for (int i = 0; i < V; ++i)
      if (i < cn) reinterpret_cast<S*>(p)[i] = w.v[i];
  }
}

extern "C" __global__ void __launch_bounds__(256) {{KERNEL_NAME}}({{PARAMS}}) {
  typedef {{INDEX_T}} cj_idx;
  typedef {{OFFSET_T}} cj_off;
  const int cj_V = {{V}}, cj_T = 16 * {{V}};
  {{TILES}}
  const cj_idx cj_nr = (cj_idx)cj_l.shape[{{NDIM}} - 2], cj_nc = (cj_idx)cj_l.shape[{{NDIM}} - 1];
  cj_idx cj_nb = 1;
#pragma unroll
  for (int cj_d = 0; cj_d < {{NDIM}} - 2; ++cj_d) cj_nb *= (cj_idx)cj_l.shape[cj_d];
  const cj_idx cj_ntr = (cj_nr + cj_T - 1) / cj_T, cj_ntc = (cj_nc + cj_T - 1) / cj_T;
  const cj_idx cj_ntiles = cj_ntr * cj_ntc * cj_nb;
  // Phase 1: 16 threads down a tile column; phase 2: 16 along a tile row.
  const unsigned cj_lr = threadIdx.x % 16, cj_lc = threadIdx.x / 16;
  const unsigned cj_cv = threadIdx.x % 16, cj_rq = threadIdx.x / 16;
  {{SETUP}}
  for (cj_idx cj_id = blockIdx.x; cj_id < cj_ntiles; cj_id += gridDim.x) {
    // The tile's coordinates: 32-bit divisions (a 64-bit one is a long
    // software routine, which every thread would run once a tile) unless the
    // tiles outnumber them.
    cj_idx cj_tc, cj_tr, cj_b;
    if (sizeof(cj_idx) > 4 && cj_ntiles > 0xffffffffu) {
      const cj_idx cj_rt = cj_id / cj_ntc;
      cj_tc = cj_id - cj_rt * cj_ntc;
      cj_tr = cj_rt % cj_ntr;
      cj_b = cj_rt / cj_ntr;
    } else {
      const unsigned cj_id32 = (unsigned)cj_id, cj_rt = cj_id32 / (unsigned)cj_ntc;
      cj_tc = cj_id32 - cj_rt * (unsigned)cj_ntc;
      cj_tr = cj_rt % (unsigned)cj_ntr;
      cj_b = cj_rt / (unsigned)cj_ntr;
    }
    const cj_idx cj_r0 = cj_tr * cj_T, cj_c0 = cj_tc * cj_T;
    // Byte offsets of the tile's first element.
    cj_off cj_o[{{NSTRIDED}}];
#pragma unroll
    for (int cj_s = 0; cj_s < {{NSTRIDED}}; ++cj_s)
      cj_o[cj_s] = (cj_off)cj_r0 * cj_l.stride[cj_s][{{NDIM}} - 2] + (cj_off)cj_c0 * cj_l.stride[cj_s][{{NDIM}} - 1];
    if ({{NDIM}} > 2) {
      {{OFFSETS}}
    }
    {{TILE_LOAD}}
    __syncthreads();
    const cj_idx cj_c = cj_c0 + cj_V * cj_cv;
    const int cj_cn = cj_c < cj_nc ? (int)(cj_nc - cj_c < (cj_idx)cj_V ? cj_nc - cj_c : (cj_idx)cj_V) : 0;
#pragma unroll
    for (int cj_jr = 0; cj_jr < cj_V; ++cj_jr) {
      const unsigned cj_rr = cj_rq + 16 * cj_jr;
      const cj_idx cj_r = cj_r0 + cj_rr;
      if (cj_r < cj_nr && cj_cn > 0) {
        {{ROW}}
        {{VLOAD}}
#pragma unroll
        for (int cj_j = 0; cj_j < cj_V; ++cj_j) {
          if (cj_j < cj_cn) {
            {{VINDEX}}
            {{VELEM}}
            {{CALL}}
            {{VSTORE_ELEM}}
          }
        }
        {{VSTORE}}
      }
    }
    __syncthreads();
  }
}

#include "cpu/reduce.hpp"

#include <algorithm>
#include <array>
#include <cmath>
#include <complex>
#include <cstring>
#include <exception>
#include <limits>
#include <memory>
#include <mutex>
#include <string>
#include <type_traits>

#include "core/array.hpp"
#include "cpu/reduce_loops.hpp"
#include "cpu/thread_pool.hpp"
#include "core/fail.hpp"
#include "core/scalar.hpp"

namespace cujit {

namespace {

using namespace scalar;
using plan::ReduceStep;

// A sum leaf's lanes: independent chains of additions, enough to keep a
// vector unit busy (NumPy's 8 lanes leave one or two chains per register), in
// 128 bytes of accumulators: 8 SSE registers of 16 (more would spill one, and
// its chain would go through memory). Each lane adds 16 elements in sequence,
// as each of NumPy's 8 lanes of its 128.
template <class Acc> constexpr int kLanes = std::max<int>(8, 128 / sizeof(Acc));
template <class Acc> constexpr std::int64_t kSumLeaf = 16 * kLanes<Acc>;
constexpr std::int64_t kLeaf = 512;  // the longest leaf: kSumLeaf<float>; min, max, any, all
constexpr std::int64_t kSegment = 1 << 16;  // elements behind one partial; fixed, so the order is the shape's alone

// Wakes the helpers of a reduction of `elements` elements in `tasks` tasks
// before its parallel_tasks call (as eval.cpp does past kPrepareAt): left
// to itself the pool runs the first tasks on the calling thread alone and
// wakes a helper only once the rest project past 150 us, so a sum of 10^6
// floats (16 segments of 10 us) ran on one core and one of 10^7 started its
// helper late.
void announce(std::int64_t elements, std::int64_t tasks, int threads) {
  if (elements >= kPrepareAt && tasks > 1 && threads > 1)
    prepare_parallel(static_cast<int>(std::min<std::int64_t>(threads, tasks)));
}

// ---- where the reduced elements are ----

// The map's dims split into kept ones (which result element) and reduced ones
// (the elements reduced into it, in C order), each list with extent-1 dims
// dropped and contiguous neighbours merged.
// A map computed segment by segment inside the reduction (reduce_fused):
// each worker's segment in its own buffer.
struct Fused {
  BlockEvaluator* map = nullptr;
  std::vector<std::unique_ptr<unsigned char[]>> buffers;  // per worker, kSegment elements
};
// The segment the calling thread holds (Fused): its buffer and first element.
thread_local const unsigned char* tl_block = nullptr;
thread_local std::int64_t tl_block_start = 0;

struct Geometry {
  const unsigned char* base = nullptr;
  Fused* fused = nullptr;  // the elements are computed, not read from base
  int nk = 0, nr = 0;
  std::int64_t kext[kMaxDims] = {}, kstride[kMaxDims] = {};
  std::int64_t rext[kMaxDims] = {}, rstride[kMaxDims] = {};
  std::int64_t outputs = 1, count = 1;
  std::size_t item = 1;

  static void add(int& n, std::int64_t* ext, std::int64_t* stride, std::int64_t e, std::int64_t s) {
    if (e == 1) return;
    if (n > 0 && stride[n - 1] == s * e) {
      ext[n - 1] *= e;
      stride[n - 1] = s;
      return;
    }
    ext[n] = e;
    stride[n] = s;
    ++n;
  }

  Geometry(const ArrayView& x, const ReduceStep& st) {
    base = static_cast<const unsigned char*>(x.data);
    item = dtype_size(x.dtype);
    for (int d = 0; d < x.shape.ndim; ++d) {
      const bool reduced = std::binary_search(st.axes.begin(), st.axes.end(), d);
      if (reduced) {
        add(nr, rext, rstride, x.shape[d], x.strides[d]);
        count *= x.shape[d];
      } else {
        add(nk, kext, kstride, x.shape[d], x.strides[d]);
        outputs *= x.shape[d];
      }
    }
  }

  std::int64_t output_offset(std::int64_t o) const {
    std::int64_t off = 0;
    for (int d = nk - 1; d >= 0; --d) {
      off += (o % kext[d]) * kstride[d];
      o /= kext[d];
    }
    return off;
  }
};

// Copies reduced elements [r, r + n) of one result, n <= kLeaf, into `buf`.
void gather(const Geometry& g, const unsigned char* start, std::int64_t r, std::int64_t n, unsigned char* buf) {
  const std::size_t item = g.item;
  if (g.nr == 0) {  // nothing reduced: the one element
    std::memcpy(buf, start, item);
    return;
  }
  std::int64_t idx[kMaxDims], off = 0, flat = r;
  const int last = g.nr - 1;
  for (int d = last; d >= 0; --d) {
    idx[d] = flat % g.rext[d];
    flat /= g.rext[d];
    off += idx[d] * g.rstride[d];
  }
  const std::int64_t step = g.rstride[last];
  for (std::int64_t k = 0; k < n;) {
    const std::int64_t run = std::min(n - k, g.rext[last] - idx[last]);
    const unsigned char* src = start + off;
    if (step == static_cast<std::int64_t>(item)) {
      std::memcpy(buf + k * static_cast<std::int64_t>(item), src, static_cast<std::size_t>(run) * item);
    } else {
      for (std::int64_t q = 0; q < run; ++q) std::memcpy(buf + (k + q) * static_cast<std::int64_t>(item), src + q * step, item);
    }
    k += run;
    idx[last] += run;
    off += run * step;
    if (idx[last] == g.rext[last]) {
      off -= g.rext[last] * step;
      idx[last] = 0;
      for (int d = last - 1; d >= 0; --d) {
        off += g.rstride[d];
        if (++idx[d] < g.rext[d]) break;
        off -= g.rext[d] * g.rstride[d];
        idx[d] = 0;
      }
    }
  }
}

// Reduced elements [r, r + n) of result o (n <= kLeaf): where they are when
// they lie in one contiguous run (the common case: no copy), else gathered into `buf`.
template <class In> const In* elements(const Geometry& g, std::int64_t o, std::int64_t r, std::int64_t n, unsigned char* buf) {
  if (g.fused) return reinterpret_cast<const In*>(tl_block + (r - tl_block_start) * static_cast<std::int64_t>(sizeof(In)));
  const unsigned char* start = g.base + g.output_offset(o);
  if (g.nr == 1 && g.rstride[0] == static_cast<std::int64_t>(sizeof(In)))
    return reinterpret_cast<const In*>(start + r * static_cast<std::int64_t>(sizeof(In)));
  gather(g, start, r, n, buf);
  return reinterpret_cast<const In*>(buf);
}

// ---- values ----

template <class T> bool isnan_v(const T& v) {
  if constexpr (std::is_floating_point_v<T>) return std::isnan(v);
  else if constexpr (is_cplx_v<T>) return std::isnan(v.real()) || std::isnan(v.imag());
  else return false;
}
// The value an element stands for, for comparisons: 16-bit floats as float.
template <class T> auto value_of(const T& v) {
  if constexpr (std::is_same_v<T, Half> || std::is_same_v<T, BF16>) return cast<float>(v);
  else return v;
}
template <class T> bool less(const T& a, const T& b) {
  if constexpr (is_cplx_v<T>) return a.real() < b.real() || (a.real() == b.real() && a.imag() < b.imag());
  else return a < b;
}
template <class T> struct real_of { using type = T; };
template <class T> struct real_of<std::complex<T>> { using type = T; };

// Pairwise over `n` partials (the same tree as the elements').
template <class P, class C> P tree(const P* p, std::int64_t n, const C& combine) {
  if (n == 1) return p[0];
  const std::int64_t h = n / 2;
  return combine(tree(p, h, combine), tree(p + h, n - h, combine));
}

// Runs `leaf(o, r, n)` -> P over every result o and its elements, cut into
// leaves inside fixed segments; combines pairwise. Returns one P per result.
template <class P, class Leaf, class Combine>
std::vector<P> reduce_all(const Geometry& g, const Leaf& leaf, const Combine& combine, P identity, int threads,
                          std::int64_t leaf_len = kLeaf) {
  const std::int64_t nseg = std::max<std::int64_t>(1, (g.count + kSegment - 1) / kSegment);
  const std::int64_t items = g.outputs * nseg;
  std::vector<P> part(static_cast<std::size_t>(items), identity);
  // A segment's elements, leaves of kLeaf combined pairwise.
  auto segment = [&](std::int64_t o, std::int64_t lo, std::int64_t hi) {
    auto rec = [&](auto& self, std::int64_t a, std::int64_t b) -> P {
      if (b - a <= leaf_len) return leaf(o, a, b - a);
      // Halves on a leaf boundary (NumPy's pairwise sum splits on its 8 lanes likewise).
      std::int64_t h = (b - a) / 2;
      h = std::max(leaf_len, h - h % leaf_len);
      // The halves in address order, named: as combine's arguments GCC ran
      // the right one first, and the leaves, read from the last back to the
      // first, streamed from memory at half the rate (a sum of 10^8 floats
      // took 62 ms where max, one leaf per segment, took 33).
      const P left = self(self, a, a + h);
      const P right = self(self, a + h, b);
      return combine(left, right);
    };
    return hi > lo ? rec(rec, lo, hi) : identity;
  };
  const std::int64_t per_task = std::max<std::int64_t>(1, kSegment / std::max<std::int64_t>(1, std::min(g.count, kSegment)));
  const std::int64_t tasks = (items + per_task - 1) / per_task;
  if (threads <= 0) threads = cpu_threads();
  announce(g.outputs * g.count, tasks, threads);
  std::exception_ptr failure;  // of a fused map's evaluation (memory for its scratch)
  std::mutex failure_mu;
  parallel_tasks(tasks, threads, [&](int worker, std::int64_t t) {
    const std::int64_t end = std::min(items, (t + 1) * per_task);
    for (std::int64_t it = t * per_task; it < end; ++it) {
      const std::int64_t o = it / nseg, s = it % nseg;
      const std::int64_t lo = s * kSegment, hi = std::min(g.count, (s + 1) * kSegment);
      if (g.fused) {  // one result (reduce_fused): the segment's elements of the map, then its reduction
        try {
          auto& buf = g.fused->buffers[static_cast<std::size_t>(worker)];
          if (!buf) buf.reset(new unsigned char[static_cast<std::size_t>(kSegment) * g.item]);
          g.fused->map->run(worker, lo, hi - lo, buf.get());
          tl_block = buf.get();
          tl_block_start = lo;
        } catch (...) {
          std::lock_guard<std::mutex> lock(failure_mu);
          if (!failure) failure = std::current_exception();
          return;
        }
      }
      part[static_cast<std::size_t>(it)] = segment(o, lo, hi);
    }
  });
  if (failure) std::rethrow_exception(failure);
  if (nseg == 1) return part;
  std::vector<P> out(static_cast<std::size_t>(g.outputs));
  for (std::int64_t o = 0; o < g.outputs; ++o) out[static_cast<std::size_t>(o)] = tree(&part[static_cast<std::size_t>(o * nseg)], nseg, combine);
  return out;
}

// Writes value v (any host type) as element o of `out`.
template <class V> void store(HostArray& out, std::int64_t o, const V& v) {
  visit(out.dtype(), [&](auto tag) {
    using T = decltype(tag);
    T x = cast<T>(v);
    std::memcpy(static_cast<unsigned char*>(out.data()) + o * static_cast<std::int64_t>(sizeof(T)), &x, sizeof(T));
  });
}

// NumPy's error for a reduction with no identity over no elements.
std::string empty_message(const ReduceStep& st) {
  switch (st.what) {
    case Reduce::Min: return std::string("zero-size array to reduction operation ") + (st.nan_ignoring ? "fmin" : "minimum") + " which has no identity";
    case Reduce::Max: return std::string("zero-size array to reduction operation ") + (st.nan_ignoring ? "fmax" : "maximum") + " which has no identity";
    case Reduce::ArgMin: return "attempt to get argmin of an empty sequence";
    default: return "attempt to get argmax of an empty sequence";
  }
}

// ---- sums, products, means, variances ----

// Accumulates in 64-bit integers whatever integer or bool dtype NumPy names:
// wrapping sums and products agree modulo 2^k, and the result converts once.
DType wide(DType acc) {
  if (is_bool(acc) || is_signed_int(acc)) return DType::Int64;
  if (is_integer(acc)) return DType::UInt64;
  return acc;
}

// Vectors of 16 bytes: SSE2's width, which every x86-64 has (a wider vector
// without AVX is lowered element by element), and NEON's. Integers and floats
// alike; bool is read as its own type elsewhere.
template <class V> constexpr bool kVectorized = std::is_arithmetic_v<V> && !std::is_same_v<V, bool>;
template <class V> struct VecOf {
  typedef V type __attribute__((vector_size(16)));
};
template <class V> using Vec16 = typename VecOf<V>::type;
// leaf_sum of n >= kLanes floats in explicit vectors, 8 of 16 bytes: the
// same additions lane for lane (GCC's own vectorization of the lanes loop
// leaves some lanes scalar).
constexpr std::int64_t kPrefetchAhead = 2048;  // bytes
template <class Acc> Acc leaf_sum_vectors(const Acc* x, std::int64_t n) {
  using Vec = Vec16<Acc>;
  constexpr int L = kLanes<Acc>, VL = 16 / sizeof(Acc), NV = L / VL;
  Vec v[NV];
  for (int c = 0; c < NV; ++c) {
    Vec e;
    std::memcpy(&e, x + c * VL, sizeof e);
    v[c] = Vec{} + e;
  }
  std::int64_t k = L;
  for (; k + L <= n; k += L) {
    __builtin_prefetch(x + k + kPrefetchAhead / sizeof(Acc));
    __builtin_prefetch(x + k + kPrefetchAhead / sizeof(Acc) + 64 / sizeof(Acc));
    for (int c = 0; c < NV; ++c) {
      Vec e;
      std::memcpy(&e, x + k + c * VL, sizeof e);
      v[c] += e;
    }
  }
  if (k < n) {  // the last row's elements, lanes 0 up
    Acc l[L];
    std::memcpy(l, v, sizeof l);
    for (int j = 0; k + j < n; ++j) l[j] += x[k + j];
    std::memcpy(v, l, sizeof l);
  }
  // The fold's halves as whole vectors while they are, then within one.
  for (int h = NV / 2; h >= 1; h /= 2)
    for (int c = 0; c < h; ++c) v[c] += v[c + h];
  Acc l[VL];
  std::memcpy(l, &v[0], sizeof l);
  for (int w = VL / 2; w >= 1; w /= 2)
    for (int j = 0; j < w; ++j) l[j] += l[j + w];
  return l[0];
}

// Sums x[0, n) (n <= kLeaf) as Acc: lane j adds x[j], x[j + kLanes], ... in
// order from +0 (an element missing from the last row would add +0, which
// changes no lane), then the lanes fold pairwise, upper half onto lower half.
// Under 8 elements, one lane adds them in order, as NumPy's pairwise sum does:
// a short row's sum (a mean subtracted from its own elements) has NumPy's bits.
// The column sums below keep exactly these operations.
// An element enters the accumulator as a Via first (Via = Acc but for signed
// int64 sums and products, which accumulate in uint64 for its defined
// wrapping: a float element converts to int64 first, so -1.5 adds -1 as in
// NumPy's dtype=int64, not uint64's saturated 0).
template <class Acc, class Via = Acc, class In> Acc as_acc(const In& v) {
  if constexpr (std::is_same_v<Acc, In>) return v;
  else if constexpr (std::is_same_v<Acc, Via>) return cast<Acc>(v);
  else return static_cast<Acc>(cast<Via>(v));
}
template <class Acc, class Via = Acc, class In> Acc leaf_sum(const In* x, std::int64_t n) {
  if (n < 8) {
    Acc s{};
    for (std::int64_t k = 0; k < n; ++k) s += as_acc<Acc, Via>(x[k]);
    return s;
  }
  constexpr int L = kLanes<Acc>;
  if constexpr (std::is_same_v<In, Acc> && std::is_floating_point_v<Acc>) {
    if (n >= L) return leaf_sum_vectors(x, n);
  }
  Acc l[L];
  std::int64_t k = 0;
  // +0 plus the first row: a loop of vector additions where zeroing the
  // lanes first would be a memset call, costly at a leaf's size.
  if (n >= L) {
    for (int j = 0; j < L; ++j) l[j] = Acc{} + as_acc<Acc, Via>(x[j]);
    k = L;
  } else {
    for (int j = 0; j < L; ++j) l[j] = Acc{};
  }
  for (; k + L <= n; k += L)
    for (int j = 0; j < L; ++j) l[j] += as_acc<Acc, Via>(x[k + j]);
  for (int j = 0; k + j < n; ++j) l[j] += as_acc<Acc, Via>(x[k + j]);
  for (int w = L / 2; w >= 1; w /= 2)
    for (int j = 0; j < w; ++j) l[j] += l[j + w];
  return l[0];
}

template <class Acc> struct Moments {
  Acc sum{};
  std::int64_t cnt = 0;
};

// An integer sum accumulated in 64 bits, wrapped into the integer dtype `t`
// it stands for (sums agree with it modulo 2^k), as NumPy's true division
// takes it: converted to float64.
template <class Acc> double wrapped(Acc s, DType t) {
  switch (t) {
    case DType::Int8: return static_cast<std::int8_t>(s);
    case DType::Int16: return static_cast<std::int16_t>(s);
    case DType::Int32: return static_cast<std::int32_t>(s);
    case DType::UInt8: return static_cast<std::uint8_t>(s);
    case DType::UInt16: return static_cast<std::uint16_t>(s);
    case DType::UInt32: return static_cast<std::uint32_t>(s);
    case DType::UInt64: return static_cast<double>(static_cast<std::uint64_t>(s));
    case DType::Bool: return s != 0;
    default: return static_cast<double>(static_cast<std::int64_t>(s));
  }
}

// A row's stretch added to its lanes, lane[w] += x[w]: each addition the
// same in any vector width (one rounding, no contraction), so the widest the
// CPU has, chosen at load time (GCC's target_clones: an ifunc, one function,
// no Highway wrapper for a loop the compiler vectorizes itself). In SSE2 the
// axis-0 sum of 1000x1000 doubles spent 3/4 of its time in this loop, a
// load, load, add and store per two doubles.
// Not under ThreadSanitizer: the ifunc's resolver runs while the dynamic
// linker relocates, before TSan's runtime is up, and its instrumented code
// crashed every test binary at load (SIGSEGV in add_row's resolver).
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__)
#define CUJIT_ROW_CLONES __attribute__((target_clones("avx512f", "avx2", "default")))
#else
#define CUJIT_ROW_CLONES
#endif
CUJIT_ROW_CLONES void add_row(float* lane, const float* x, int width) {
  for (int w = 0; w < width; ++w) lane[w] += x[w];
}
CUJIT_ROW_CLONES void add_row(double* lane, const double* x, int width) {
  for (int w = 0; w < width; ++w) lane[w] += x[w];
}
template <class Via, class Acc, class In> void add_row_via(Acc* lane, const In* x, int width) {
  for (int w = 0; w < width; ++w) lane[w] += as_acc<Acc, Via>(x[w]);
}

// Sums where the results lie side by side in memory and their elements do not
// (`sum(x, axis=0)` of a C-contiguous x): kTile results at a time, each with the
// very operations of the one-result path (the same leaves, lanes and tree), so
// the bits are the same; each row's stretch of the tile is added to its lane
// as a vector, read where it lies (no gather, one element per cache line).
// Tiles of 1024 results (512 of complex128): a row's stretch long enough for
// the memory system to stream; the lanes' accumulators (128 KiB) stay in L2.
template <class Acc> constexpr int kTile = std::min<int>(1024, 8192 / sizeof(Acc));

bool columns_apply(const Geometry& g, std::size_t item) {
  return g.nk >= 1 && g.nr >= 1 && g.kstride[g.nk - 1] == static_cast<std::int64_t>(item) &&
         !(g.nr == 1 && g.rstride[0] == static_cast<std::int64_t>(item));
}

template <class In, class Acc, class Via = Acc> std::vector<Acc> column_sums(const Geometry& g, int threads) {
  constexpr int kTile = cujit::kTile<Acc>;
  // leaf_sum's lanes, one per column: row r + k goes to lane k % kLanes.
  constexpr int L = kLanes<Acc>;
  constexpr std::int64_t leaf_len = kSumLeaf<Acc>;
  const std::int64_t inner = g.kext[g.nk - 1];
  // A segment's tree splits on leaf boundaries (reduce_all), and kSegment is
  // a multiple of leaf_len: leaf i is rows [i * leaf_len, (i + 1) * leaf_len)
  // wherever it lies. The tasks are (tile, leaves): the leaves of one segment
  // run in parallel too, and their sums are combined afterwards along the
  // segment's own tree, so the bits stay those of one thread. Tiles as wide as
  // the rows where they can be: a tile of whole rows reads memory straight
  // through, where narrower ones (the earlier way to keep two threads busy on
  // 1000 rows) read it in strides, at twice the time per element.
  const std::int64_t nleaves = (g.count + leaf_len - 1) / leaf_len;
  if (threads <= 0) threads = cpu_threads();
  std::int64_t tile = kTile;
  while (tile > 128 && g.outputs / inner * ((inner + tile - 1) / tile) * nleaves < threads &&
         g.outputs * g.count >= threads * kSegment)
    tile /= 2;
  const std::int64_t per_row = (inner + tile - 1) / tile;
  const std::int64_t tiles = g.outputs / inner * per_row;
  // Leaves per task: a task of at least a segment's elements where leaves are narrow.
  const std::int64_t per_task = std::max<std::int64_t>(1, kSegment / (leaf_len * std::min(tile, inner)));
  const std::int64_t tasks_per_tile = (nleaves + per_task - 1) / per_task;
  auto reduced_offset = [&](std::int64_t r) {
    std::int64_t off = 0;
    for (int d = g.nr - 1; d >= 0; --d) {
      off += (r % g.rext[d]) * g.rstride[d];
      r /= g.rext[d];
    }
    return off;
  };
  // l: L lanes of `tile` accumulators, stride apart: 128 bytes more than a
  // tile, so that lanes are not a multiple of 4 KiB apart (a load from one
  // would wait for the store to another that it only seems to overlap).
  const std::int64_t stride = tile + 128 / static_cast<std::int64_t>(sizeof(Acc));
  // Sums rows [r, r + n) of a tile `width` wide into dst[0, width).
  auto leaf = [&](Acc* l, const unsigned char* base, int width, std::int64_t r, std::int64_t n, Acc* dst) {
    for (int j = 0; j < L; ++j)
      for (int w = 0; w < width; ++w) l[j * stride + w] = Acc{};
    // Rows ahead prefetched where a row's stretch is too short for the
    // hardware to follow the stride (a long one it streams, and prefetch
    // instructions would only wait for its line buffers).
    constexpr std::int64_t kAhead = 8;
    const std::int64_t stretch = width * static_cast<std::int64_t>(sizeof(In));
    const bool prefetch = g.nr == 1 && stretch <= 1024;
    // Where the tile is whole rows (the leaf one block of memory), lane by
    // lane: lane j takes rows j, j + L, ... in order, as row by row does, so
    // each column's additions are the same, but one lane's accumulators (8
    // KiB of float64) stay in L1 while its rows stream in. Row by row, each
    // row goes to the next of the L lanes, 128 KiB in all: every element was
    // an L2 load and store of its accumulator besides its read (float64 sum
    // over axis 0 of 1000x1000: 0.87 of NumPy's speed; lane by lane 1.2-1.4x
    // faster). A tile cut from longer rows keeps row by row: lane by lane
    // measured 5% slower there (3162x3162), its rows 16 strides apart.
    const int lanes = n < 8 ? 1 : L;
    const bool by_lane = g.nr == 1 && g.rstride[0] == stretch;
    const int step = by_lane ? lanes : 1;  // rows from one to the next a loop takes
    for (int j = 0; j < (by_lane ? lanes : 1); ++j) {
      Acc* lane = l + j * stride;
      for (std::int64_t k = j; k < n; k += step) {
        if (!by_lane) lane = l + (k % lanes) * stride;
        const std::int64_t off = g.nr == 1 ? (r + k) * g.rstride[0] : reduced_offset(r + k);
        if (prefetch && k + kAhead * step < n)
          for (std::int64_t b = 0; b < stretch; b += 64) __builtin_prefetch(base + off + kAhead * step * g.rstride[0] + b);
        const In* x = reinterpret_cast<const In*>(base + off);
        if constexpr (std::is_same_v<Acc, In> && std::is_floating_point_v<Acc>) add_row(lane, x, width);
        else add_row_via<Via>(lane, x, width);
      }
    }
    for (int h = L / 2; h >= 1; h /= 2)
      for (int j = 0; j < h; ++j)
        for (int w = 0; w < width; ++w) l[j * stride + w] += l[(j + h) * stride + w];
    for (int w = 0; w < width; ++w) dst[w] = l[w];
  };
  auto first_of = [&](std::int64_t t) { return t / per_row * inner + t % per_row * tile; };
  auto width_of = [&](std::int64_t t) { return static_cast<int>(std::min<std::int64_t>(tile, inner - t % per_row * tile)); };
  const std::int64_t tasks = tiles * tasks_per_tile;
  announce(g.outputs * g.count, tasks, threads);
  // part: each tile's leaf sums, a tile's width apart, then combined in place.
  const std::int64_t pw = std::min(tile, inner);
  std::vector<Acc> part(static_cast<std::size_t>(tiles * nleaves * pw));
  auto slot = [&](std::int64_t t, std::int64_t i) { return part.data() + (t * nleaves + i) * pw; };
  // Each worker's lanes, made once: a new vector per task was a fresh
  // allocation of 128 KiB (an mmap, its pages faulted in) and its zeroing.
  std::vector<std::vector<Acc>> scratch(static_cast<std::size_t>(threads));
  parallel_tasks(tasks, threads, [&](int worker, std::int64_t it) {
    const std::int64_t t = it / tasks_per_tile, first = it % tasks_per_tile * per_task;
    const int width = width_of(t);
    const unsigned char* base = g.base + g.output_offset(first_of(t));
    std::vector<Acc>& lanes = scratch[static_cast<std::size_t>(worker)];
    if (lanes.empty()) lanes.resize(static_cast<std::size_t>(L * stride));
    for (std::int64_t i = first; i < std::min(nleaves, first + per_task); ++i)
      leaf(lanes.data(), base, width, i * leaf_len, std::min(leaf_len, g.count - i * leaf_len), slot(t, i));
  });
  // The trees of reduce_all over the leaf sums, each node's sum left in its
  // first leaf's slot: within each segment, then over the segments.
  std::vector<Acc> out(static_cast<std::size_t>(g.outputs));
  const std::int64_t seg_leaves = kSegment / leaf_len, nseg = (nleaves + seg_leaves - 1) / seg_leaves;
  for (std::int64_t t = 0; t < tiles; ++t) {
    const int width = width_of(t);
    auto add_into = [&](std::int64_t i, std::int64_t j) {
      Acc* a = slot(t, i);
      const Acc* b = slot(t, j);
      for (int w = 0; w < width; ++w) a[w] = a[w] + b[w];
    };
    auto rec = [&](auto& self, std::int64_t a, std::int64_t b) -> void {  // rows [a, b)
      if (b - a <= leaf_len) return;
      std::int64_t h = (b - a) / 2;
      h = std::max(leaf_len, h - h % leaf_len);
      self(self, a, a + h);
      self(self, a + h, b);
      add_into(a / leaf_len, (a + h) / leaf_len);
    };
    for (std::int64_t s = 0; s < nseg; ++s) rec(rec, s * kSegment, std::min(g.count, (s + 1) * kSegment));
    auto over = [&](auto& self, std::int64_t s, std::int64_t n) -> void {  // segments [s, s + n), as tree()
      if (n == 1) return;
      const std::int64_t h = n / 2;
      self(self, s, h);
      self(self, s + h, n - h);
      add_into(s * seg_leaves, (s + h) * seg_leaves);
    };
    over(over, 0, nseg);
    const Acc* sum = slot(t, 0);
    const std::int64_t o0 = first_of(t);
    for (int w = 0; w < width; ++w) out[static_cast<std::size_t>(o0 + w)] = sum[w];
  }
  return out;
}

template <class In, class Acc, class Via = Acc>
void arithmetic(const Geometry& g, const ReduceStep& st, HostArray& out, int threads) {
  using R = typename real_of<Acc>::type;
  // A NaN is found among the elements, before any conversion: nanprod of
  // floats into an integer dtype= skips them (NumPy's 1), where converted they
  // were 0s.
  const bool nan = st.skips_nan();
  const Acc zero{};  // +0, as NumPy's sum([-0.0])
  auto load = [&](std::int64_t o, std::int64_t r, std::int64_t n, Acc* v, bool* present) {
    alignas(64) unsigned char buf[kLeaf * sizeof(In)];
    const In* x = elements<In>(g, o, r, n, buf);
    for (std::int64_t k = 0; k < n; ++k) {
      v[k] = as_acc<Acc, Via>(x[k]);
      present[k] = !(nan && isnan_v(value_of(x[k])));
    }
  };
  using M = Moments<Acc>;
  auto add = [](const M& a, const M& b) { return M{a.sum + b.sum, a.cnt + b.cnt}; };
  const std::int64_t outputs = g.outputs;
  if (st.what == Reduce::Prod) {
    auto leaf = [&](std::int64_t o, std::int64_t r, std::int64_t n) {
      Acc v[kLeaf];
      bool present[kLeaf];
      load(o, r, n, v, present);
      Acc p = Acc(1);
      for (std::int64_t k = 0; k < n; ++k)
        if (present[k]) p *= v[k];
      return p;
    };
    // NumPy's leaf of 128 (a product's rounding does not gain from pairs as a sum's does).
    auto parts = reduce_all<Acc>(g, leaf, [](Acc a, Acc b) { return a * b; }, Acc(1), threads, 128);
    for (std::int64_t o = 0; o < outputs; ++o) store(out, o, parts[static_cast<std::size_t>(o)]);
    return;
  }
  auto leaf = [&](std::int64_t o, std::int64_t r, std::int64_t n) {
    if (!nan) {  // the common case: no copy, the conversion inside the lanes
      alignas(64) unsigned char buf[kLeaf * sizeof(In)];
      return M{leaf_sum<Acc, Via>(elements<In>(g, o, r, n, buf), n), n};
    }
    Acc v[kLeaf];
    bool present[kLeaf];
    load(o, r, n, v, present);
    std::int64_t c = n;
    for (std::int64_t k = 0; k < n; ++k)
      if (!present[k]) v[k] = Acc(0), --c;
    return M{leaf_sum<Acc>(v, n), c};
  };
  std::vector<M> sums;
  if (!nan && g.count > 0 && columns_apply(g, sizeof(In)) && (st.what == Reduce::Sum || st.what == Reduce::Mean)) {
    for (const Acc& c : column_sums<In, Acc, Via>(g, threads)) sums.push_back(M{c, g.count});
  } else {
    sums = reduce_all<M>(g, leaf, add, M{zero, 0}, threads, kSumLeaf<Acc>);
  }
  if (st.what == Reduce::Sum) {
    for (std::int64_t o = 0; o < outputs; ++o) {
      store(out, o, sums[static_cast<std::size_t>(o)].sum);
    }
    return;
  }
  // mean = sum / count, as NumPy's (true division, also for an integer dtype=,
  // whose sum wraps in that dtype first: NumPy sums in it).
  auto mean_of = [&](const M& m) {
    if constexpr (std::is_integral_v<Acc>) return wrapped(m.sum, st.acc) / static_cast<double>(m.cnt);
    else if constexpr (is_cplx_v<Acc>) {
      // NumPy divides by the count as a complex number (Smith's algorithm with a zero imaginary
      // part), which spreads a NaN or an infinity of either part to both.
      const R c = static_cast<R>(m.cnt), re = m.sum.real(), im = m.sum.imag();
      return Acc((re + im * R(0)) / c, (im - re * R(0)) / c);
    } else {
      return m.sum / static_cast<R>(m.cnt);
    }
  };
  if (st.what == Reduce::Mean) {
    for (std::int64_t o = 0; o < outputs; ++o) store(out, o, mean_of(sums[static_cast<std::size_t>(o)]));
    return;
  }
  if constexpr (!std::is_integral_v<Acc>) {
    // var/std: the mean first, then the squared deviations' sum (NumPy's two passes).
    std::vector<Acc> mean(static_cast<std::size_t>(outputs));
    for (std::int64_t o = 0; o < outputs; ++o) mean[static_cast<std::size_t>(o)] = mean_of(sums[static_cast<std::size_t>(o)]);
    using MR = Moments<R>;
    auto dev = [&](std::int64_t o, std::int64_t r, std::int64_t n) {
      R d[kLeaf];
      const Acc m = mean[static_cast<std::size_t>(o)];
      if constexpr (std::is_floating_point_v<Acc>) {
        if (!nan) {  // the common case: the elements where they are, no flags
          alignas(64) unsigned char buf[kLeaf * sizeof(In)];
          const In* x = elements<In>(g, o, r, n, buf);
          for (std::int64_t k = 0; k < n; ++k) {
            const Acc e = as_acc<Acc>(x[k]) - m;
            d[k] = e * e;
          }
          return MR{leaf_sum<R>(d, n), 0};
        }
      }
      Acc v[kLeaf];
      bool present[kLeaf];
      load(o, r, n, v, present);
      for (std::int64_t k = 0; k < n; ++k) {
        const Acc x = v[k] - m;
        if constexpr (is_cplx_v<Acc>) d[k] = x.real() * x.real() + x.imag() * x.imag();
        else d[k] = x * x;
        if (!present[k]) d[k] = R(0);
      }
      const R s = leaf_sum<R>(d, n);
      return MR{s, 0};
    };
    auto sq = reduce_all<MR>(g, dev, [](const MR& a, const MR& b) { return MR{a.sum + b.sum, 0}; }, MR{R(0), 0}, threads,
                             kSumLeaf<R>);
    for (std::int64_t o = 0; o < outputs; ++o) {
      const double cnt = static_cast<double>(sums[static_cast<std::size_t>(o)].cnt);
      double dof = cnt - st.ddof;
      // NumPy's var divides by max(n - ddof, 0); its nanvar gives NaN where n - ddof <= 0.
      R var;
      if (nan && dof <= 0) var = std::numeric_limits<R>::quiet_NaN();
      else var = sq[static_cast<std::size_t>(o)].sum / static_cast<R>(std::max(dof, 0.0));
      store(out, o, st.what == Reduce::Std ? std::sqrt(var) : var);
    }
  }
}

template <class In> void arithmetic_for(const Geometry& g, const ReduceStep& st, HostArray& out, int threads) {
  switch (wide(st.acc)) {
    // Signed sums, products and means into an integer dtype= wrap, as NumPy's:
    // in uint64, whose overflow is defined (the same bits; the store, or the
    // mean's conversion to its dtype, casts them back).
    case DType::Int64:
      // Floats into a bool dtype= are nonzero or not, not truncated (0.5 is true):
      // what reaches here are the nan- versions, whose NaNs are absent.
      if constexpr (!std::is_integral_v<In> && !is_cplx_v<In>)
        if (st.acc == DType::Bool && (st.what == Reduce::Sum || st.what == Reduce::Prod))
          return arithmetic<In, std::uint64_t, bool>(g, st, out, threads);
      return arithmetic<In, std::uint64_t, std::int64_t>(g, st, out, threads);
    case DType::UInt64: return arithmetic<In, std::uint64_t>(g, st, out, threads);
    case DType::Float32: return arithmetic<In, float>(g, st, out, threads);
    case DType::Float64: return arithmetic<In, double>(g, st, out, threads);
    case DType::Complex64: return arithmetic<In, std::complex<float>>(g, st, out, threads);
    case DType::Complex128: return arithmetic<In, std::complex<double>>(g, st, out, threads);
    default: fail(ErrorCode::Internal, "CPU reduction: no accumulator {}", dtype_name(st.acc));
  }
}

// ---- min, max, argmin, argmax ----

template <class V> struct Best {
  V v{};
  std::int64_t idx = -1;  // -1: no element (yet)
};

// The first k in [from, n) where x[k] == v (a value that is there), or where
// x[k] is NaN when v is: compared a vector at a time.
template <class V> std::int64_t first_equal(const V* x, std::int64_t from, std::int64_t n, V v) {
  const bool nan = v != v;
  std::int64_t k = from;
  if constexpr (kVectorized<V>) {
    using Vec = Vec16<V>;
    using Mask = decltype(Vec{} < Vec{});
    constexpr int L = 16 / sizeof(V);
    Vec want;
    for (int j = 0; j < L; ++j) want[j] = v;
    for (; k + 4 * L <= n; k += 4 * L) {
      Mask hit = {};
      for (int c = 0; c < 4; ++c) {
        Vec e;
        std::memcpy(&e, x + k + c * L, sizeof e);
        hit |= nan ? e != e : e == want;
      }
      std::uint64_t h[2];
      std::memcpy(h, &hit, sizeof h);
      if (h[0] | h[1]) break;
    }
  }
  for (; k < n; ++k)
    if (nan ? x[k] != x[k] : x[k] == v) return k;
  return -1;
}

// The leaf of min/max/argmin/argmax on a real or integer type without NaN
// skipping: the answer of the element-by-element rule (the first NaN, else the
// first element equal to the extremum), with the extremum found vectorized.
template <bool Max, class V> Best<V> fast_leaf(const V* x, std::int64_t n, std::int64_t r, bool want_index) {
  // Chunk by chunk, so that finding the index afterwards scans one chunk: the
  // first with a NaN (the NaN wins), else the first holding the extremum.
  constexpr std::int64_t kChunk = 4096;
  V best{};
  std::int64_t at = -1;
  for (std::int64_t c = 0; c < n; c += kChunk) {
    const std::int64_t len = std::min(kChunk, n - c);
    bool any_nan = false;
    V m = x[c];
    if constexpr (kVectorized<V>) {
      m = cpu::extreme_value(x + c, len, Max, any_nan);  // reduce_loops.cpp, the CPU's widest vectors
    } else {
      for (std::int64_t k = c; k < c + len; ++k) m = Max ? (m < x[k] ? x[k] : m) : (x[k] < m ? x[k] : m);
    }
    if (any_nan) {
      const std::int64_t k = first_equal(x, c, c + len, std::numeric_limits<V>::quiet_NaN());
      return {x[k], r + k};
    }
    if (at < 0 || (Max ? best < m : m < best)) best = m, at = c;
  }
  if (!want_index && best != V(0)) return {best, r};
  const std::int64_t k = first_equal(x, at, n, best);  // its value too: of +0 and -0 the first wins
  return {x[k], r + k};
}

template <class In> void extremum(const Geometry& g, const ReduceStep& st, HostArray& out, int threads) {
  using V = decltype(value_of(In{}));
  const bool is_max = st.what == Reduce::Max || st.what == Reduce::ArgMax;
  const bool nan_ignoring = st.nan_ignoring;
  using B = Best<V>;
  // Whether b replaces a (a holds the lower indices): NaN wins and stays
  // (NumPy's min/max propagate it; the first NaN is argmin's answer); a
  // NaN-ignoring version never takes one; ties keep the first.
  auto better = [=](const B& a, const B& b) {
    if (b.idx < 0) return false;
    if (a.idx < 0) return true;
    if (isnan_v(a.v)) return false;
    if (isnan_v(b.v)) return true;
    return is_max ? less(a.v, b.v) : less(b.v, a.v);
  };
  const bool arg = st.what == Reduce::ArgMin || st.what == Reduce::ArgMax;
  auto leaf = [&](std::int64_t o, std::int64_t r, std::int64_t n) {
    alignas(64) unsigned char buf[kLeaf * sizeof(In)];
    const In* x = elements<In>(g, o, r, n, buf);
    if constexpr (std::is_same_v<In, V> && !is_cplx_v<V>) {
      if (!nan_ignoring && n > 0) return is_max ? fast_leaf<true>(x, n, r, arg) : fast_leaf<false>(x, n, r, arg);
    }
    B best;
    for (std::int64_t k = 0; k < n; ++k) {
      B c{value_of(x[k]), r + k};
      if (nan_ignoring && isnan_v(c.v)) continue;
      if (better(best, c)) best = c;
    }
    return best;
  };
  // Exact and order-free: a contiguous segment is one leaf for the fast path.
  const bool whole = std::is_same_v<In, V> && !is_cplx_v<V> && !nan_ignoring && g.nr == 1 &&
                     g.rstride[0] == static_cast<std::int64_t>(sizeof(In));
  auto parts = reduce_all<B>(g, leaf, [&](const B& a, const B& b) { return better(a, b) ? b : a; }, B{}, threads,
                             whole ? kSegment : kLeaf);
  for (std::int64_t o = 0; o < g.outputs; ++o) {
    const B& b = parts[static_cast<std::size_t>(o)];
    if (arg) {
      if (b.idx < 0) fail(ErrorCode::Data, "All-NaN slice encountered");
      store(out, o, b.idx);
    } else if (b.idx < 0) {  // nanmin/nanmax of NaNs alone: NaN, as NumPy's (which warns)
      store(out, o, std::numeric_limits<double>::quiet_NaN());
    } else {
      store(out, o, b.v);
    }
  }
}

template <class In> void logical(const Geometry& g, const ReduceStep& st, HostArray& out, int threads) {
  const bool all = st.what == Reduce::All;
  auto leaf = [&](std::int64_t o, std::int64_t r, std::int64_t n) {
    alignas(64) unsigned char buf[kLeaf * sizeof(In)];
    const In* x = elements<In>(g, o, r, n, buf);
    bool acc = all;
    for (std::int64_t k = 0; k < n; ++k) {
      const bool t = cast<bool>(x[k]);
      acc = all ? (acc && t) : (acc || t);
    }
    return acc;
  };
  auto parts = reduce_all<char>(
      g, [&](std::int64_t o, std::int64_t r, std::int64_t n) { return static_cast<char>(leaf(o, r, n)); },
      [all](char a, char b) { return static_cast<char>(all ? (a && b) : (a || b)); }, static_cast<char>(all), threads);
  for (std::int64_t o = 0; o < g.outputs; ++o) store(out, o, static_cast<bool>(parts[static_cast<std::size_t>(o)]));
}

}  // namespace

namespace {

HostArray reduce_geometry(const Geometry& g, const ReduceStep& st, int threads) {
  HostArray out(st.out, st.out_shape);
  // As NumPy: no elements to reduce is an error even where no result has any.
  const bool no_identity = st.what == Reduce::Min || st.what == Reduce::Max || st.what == Reduce::ArgMin || st.what == Reduce::ArgMax;
  if (g.count == 0 && no_identity) fail(ErrorCode::Data, empty_message(st));
  if (g.outputs == 0) return out;
  visit(st.in, [&](auto tag) {
    using In = decltype(tag);
    switch (st.what) {
      case Reduce::Min:
      case Reduce::Max:
      case Reduce::ArgMin:
      case Reduce::ArgMax: return extremum<In>(g, st, out, threads);
      case Reduce::Any:
      case Reduce::All: return logical<In>(g, st, out, threads);
      default: return arithmetic_for<In>(g, st, out, threads);
    }
  });
  return out;
}

}  // namespace

HostArray reduce_host(const ArrayView& x, const ReduceStep& st, int threads) {
  if (x.dtype != st.in || x.shape != st.map_shape)
    fail(ErrorCode::Internal, "CPU reduction: a {} {} map where the plan has {} {}", dtype_name(x.dtype),
         to_string(x.shape), dtype_name(st.in), to_string(st.map_shape));
  return reduce_geometry(Geometry(x, st), st, threads);
}

bool fuses(const ReduceStep& st) {
  // var and std read their map twice (the mean, then the deviations): a
  // temporary is cheaper than computing it twice.
  return st.what != Reduce::Var && st.what != Reduce::Std && st.axes.size() == static_cast<std::size_t>(st.map_shape.ndim);
}

HostArray reduce_fused(BlockEvaluator& map, const ReduceStep& st, int threads) {
  if (!fuses(st)) fail(ErrorCode::Internal, "CPU reduction: {} cannot take its map block by block", st.axes.size());
  if (threads <= 0) threads = cpu_threads();
  // The map's geometry as if it were a C-contiguous array: its elements in
  // order, cut into the segments and leaves of reduce_host's, so the same bits.
  ArrayView shape_only;
  shape_only.dtype = st.in;
  shape_only.shape = st.map_shape;
  shape_only.strides = ArrayView::contiguous_strides(st.map_shape, st.in);
  Fused fused;
  fused.map = &map;
  fused.buffers.resize(static_cast<std::size_t>(threads));
  Geometry g(shape_only, st);
  g.fused = &fused;
  return reduce_geometry(g, st, threads);
}

}  // namespace cujit

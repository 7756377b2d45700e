#include "plan/layout.hpp"
#include "plan/shapes.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstring>
#include <limits>
#include <string>

#include "lang/check.hpp"
#include "core/fail.hpp"

namespace cujit {

namespace {

char access_letter(Access a) {
  switch (a) {
    case Access::Contig: return 'c';
    case Access::Strided: return 's';
    case Access::Uniform: return 'u';
    case Access::Value: return 'v';
    case Access::Raw: return 'r';
    case Access::RowScalar: return 'b';
    case Access::Tiled: return 't';
  }
  return '?';
}

}  // namespace

// ---------------------------------------------------------------------------
// Layouts.

std::string KernelLayout::key_string() const {
  std::string s = kind == Kind::Contiguous ? "c" : kind == Kind::Strided ? "s" : kind == Kind::Rows ? "r" : "t";
  s += index64 ? ".i64" : ".i32";
  if (kind == Kind::Contiguous || kind == Kind::Rows || kind == Kind::Tiles) s += ".v" + std::to_string(vec);
  if (kind == Kind::Tiles) s += ".l" + std::to_string(load_vec) + ".s" + std::to_string(store_vec);
  if (kind != Kind::Contiguous) s += ".d" + std::to_string(ndim);
  s += "|o:";
  for (std::size_t k = 0; k < outputs.size(); ++k) s += (k ? "," : "") + std::string(1, access_letter(outputs[k]));
  s += "|i:";
  for (std::size_t k = 0; k < inputs.size(); ++k) s += (k ? "," : "") + std::string(1, access_letter(inputs[k]));
  return s;
}

bool KernelLayout::operator==(const KernelLayout& o) const {
  return kind == o.kind && index64 == o.index64 && vec == o.vec && load_vec == o.load_vec && store_vec == o.store_vec &&
         ndim == o.ndim && outputs == o.outputs && inputs == o.inputs;
}

namespace {
KernelLayout base_layout(const Program& p, Access arrays) {
  KernelLayout l;
  l.outputs.assign(p.outputs.size(), arrays);
  for (const Param& q : p.inputs) l.inputs.push_back(q.raw ? Access::Raw : q.weak ? Access::Value : arrays);
  return l;
}
}  // namespace

KernelLayout contiguous_layout(const Program& p, int vec, bool index64) {
  KernelLayout l = base_layout(p, Access::Contig);
  l.vec = vec;
  l.index64 = index64;
  return l;
}

KernelLayout strided_layout(const Program& p, int ndim, bool index64) {
  KernelLayout l = base_layout(p, Access::Strided);
  l.kind = KernelLayout::Kind::Strided;
  l.ndim = ndim;
  l.index64 = index64;
  return l;
}

KernelLayout rows_layout(const Program& p, int ndim, int vec, bool index64) {
  KernelLayout l = base_layout(p, Access::Strided);
  l.kind = KernelLayout::Kind::Rows;
  l.ndim = ndim;
  l.vec = vec;
  l.index64 = index64;
  return l;
}

KernelLayout tiles_layout(const Program& p, int ndim, int vec, bool index64) {
  KernelLayout l = base_layout(p, Access::Tiled);
  for (Access& a : l.outputs) a = Access::Strided;
  l.kind = KernelLayout::Kind::Tiles;
  l.ndim = ndim;
  l.vec = l.load_vec = l.store_vec = vec;
  l.index64 = index64;
  return l;
}

int max_vec(const Program& p) {
  std::size_t widest = 1;
  for (const Var& v : p.outputs) widest = std::max(widest, dtype_size(v.dtype));
  for (const Param& q : p.inputs)
    if (!q.weak && !q.raw) widest = std::max(widest, dtype_size(q.dtype));
  return static_cast<int>(16 / widest);
}

int preferred_vec(const Program& p, int max_vector) {
  int vec = std::min(max_vec(p), std::max(1, max_vector));
  while (vec > 1 && (vec & (vec - 1))) --vec;  // a power of two
  return vec;
}

void validate_layout(const Program& p, const KernelLayout& l) {
  auto bad = [&](const std::string& why) { fail(ErrorCode::Internal, "kernel layout {} does not fit the program: {}", l.key_string(), why); };
  if (l.outputs.size() != p.outputs.size()) bad("it describes " + std::to_string(l.outputs.size()) + " outputs, the program has " + std::to_string(p.outputs.size()));
  if (l.inputs.size() != p.inputs.size()) bad("it describes " + std::to_string(l.inputs.size()) + " inputs, the program has " + std::to_string(p.inputs.size()));
  bool strided = l.kind == KernelLayout::Kind::Strided, rows = l.kind == KernelLayout::Kind::Rows;
  bool tiles = l.kind == KernelLayout::Kind::Tiles;
  bool any_strided = false, any_contig = false, any_row_scalar = false, any_tiled = false;
  for (std::size_t k = 0; k < l.outputs.size(); ++k) {
    Access a = l.outputs[k];
    if (a != Access::Contig && a != Access::Strided) bad("output '" + p.outputs[k].name + "' must be contiguous or strided");
    if ((rows || tiles) && a != Access::Strided) bad("output '" + p.outputs[k].name + "' of a rows or tiles layout must be strided");
    any_strided = any_strided || a == Access::Strided;
    any_contig = any_contig || a == Access::Contig;
  }
  for (std::size_t k = 0; k < l.inputs.size(); ++k) {
    const Param& q = p.inputs[k];
    Access a = l.inputs[k];
    if (q.raw != (a == Access::Raw)) bad("input '" + q.name + (q.raw ? "' is raw" : "' is not raw"));
    if (q.weak && a != Access::Value) bad("weak scalar '" + q.name + "' must be passed by value");
    any_strided = any_strided || a == Access::Strided;
    any_contig = any_contig || a == Access::Contig;
    any_row_scalar = any_row_scalar || a == Access::RowScalar;
    any_tiled = any_tiled || a == Access::Tiled;
  }
  const bool vec_ok = l.vec == 1 || l.vec == 2 || l.vec == 4 || l.vec == 8 || l.vec == 16;
  if (strided) {
    if (l.ndim < 1 || l.ndim > kMaxDims) bad("ndim must be 1.." + std::to_string(kMaxDims));
    if (!any_strided) bad("a strided layout needs a strided operand");
    if (l.vec != 1) bad("a strided layout does not vectorize");
  } else if (tiles) {
    if (l.ndim < 2 || l.ndim > kMaxDims) bad("ndim must be 2.." + std::to_string(kMaxDims));
    if (any_contig || any_row_scalar) bad("a tiles layout reaches its operands by strides or tiles");
    if (!any_tiled) bad("a tiles layout needs a tiled input");
    auto side = [](int v) { return v == 1 || v == 2 || v == 4; };
    if (!side(l.vec) || l.vec > kMaxTileVec) bad("vec must be 1, 2 or 4");
    if (!side(l.load_vec) || !side(l.store_vec) || l.load_vec > l.vec || l.store_vec > l.vec)
      bad("load_vec and store_vec must be 1, 2 or 4 and at most vec");
  } else if (rows) {
    if (l.ndim < 2 || l.ndim > kMaxDims) bad("ndim must be 2.." + std::to_string(kMaxDims));
    if (any_contig) bad("a rows layout reaches its operands by rows (strided), not contiguous");
    if (!vec_ok) bad("vec must be 1, 2, 4, 8 or 16");
  } else {
    if (any_strided) bad("a contiguous layout has no strided operands");
    if (!vec_ok) bad("vec must be 1, 2, 4, 8 or 16");
  }
  if (any_row_scalar && !rows) bad("only a rows layout has per-row operands");
  if (any_tiled && !tiles) bad("only a tiles layout has tiled operands");
  if (!tiles && (l.load_vec != 1 || l.store_vec != 1)) bad("only a tiles layout has load_vec and store_vec");
}

std::vector<unsigned char> pack_layout_arg(const KernelLayout& l, const std::vector<std::int64_t>& full_shape,
                                           const std::vector<std::vector<std::int64_t>>& full_strides) {
  if (l.kind == KernelLayout::Kind::Contiguous) fail(ErrorCode::Internal, "pack_layout_arg: layout {} is contiguous", l.key_string());
  const bool rows = l.kind == KernelLayout::Kind::Rows;
  std::size_t nstrided = 0;
  for (Access a : l.outputs) nstrided += has_strides(a);
  for (Access a : l.inputs) nstrided += has_strides(a);
  std::size_t nd = static_cast<std::size_t>(l.ndim);
  if (full_shape.size() != nd || full_strides.size() != nstrided)
    fail(ErrorCode::Internal, "pack_layout_arg: layout {} wants {} extents and {} stride rows, got {} and {}", l.key_string(), nd,
         nstrided, full_shape.size(), full_strides.size());
  for (const auto& row : full_strides)
    if (row.size() != nd) fail(ErrorCode::Internal, "pack_layout_arg: a stride row has {} entries, the layout {}", row.size(), nd);
  // Rows: the inner dimension is implicit (itemsize or 0 by the access); the
  // outer dimensions are packed as a strided layout's.
  std::vector<std::int64_t> shape = full_shape;
  std::vector<std::vector<std::int64_t>> strides = full_strides;
  if (rows) {
    shape.pop_back();
    for (auto& row : strides) row.pop_back();
  }
  std::vector<unsigned char> out;
  auto put = [&](std::int64_t v, bool is_shape) {
    if (l.index64) {
      unsigned char b[8];
      std::memcpy(b, &v, 8);
      out.insert(out.end(), b, b + 8);
      return;
    }
    bool ok = is_shape ? (v >= 0 && v <= 0xffffffffLL) : (v >= std::numeric_limits<std::int32_t>::min() && v <= std::numeric_limits<std::int32_t>::max());
    if (!ok) fail(ErrorCode::Internal, "pack_layout_arg: {} {} needs 64-bit indexing", is_shape ? "extent" : "stride", v);
    std::uint32_t u = static_cast<std::uint32_t>(v);
    unsigned char b[4];
    std::memcpy(b, &u, 4);
    out.insert(out.end(), b, b + 4);
  };
  if (rows) {
    std::int64_t nrows = 1;
    for (std::int64_t e : shape) nrows *= e;
    put(full_shape.back(), true);
    put(nrows, true);
  }
  for (std::int64_t e : shape) put(e, true);
  if (!l.index64) {
    // q = (umulhi(r, magic) + r) >> shift is r / extent for every r < 2^31 (Granlund and
    // Montgomery; PyTorch's IntDivider): shift = ceil(log2(extent)),
    // magic = floor(2^32 * (2^shift - extent) / extent) + 1.
    std::vector<std::int64_t> magic, shift;
    for (std::int64_t e : shape) {
      std::int64_t sh = 0;
      while (sh < 32 && (std::int64_t{1} << sh) < e) ++sh;
      std::uint64_t m = e <= 0 ? 0 : (((std::uint64_t{1} << 32) * ((std::uint64_t{1} << sh) - static_cast<std::uint64_t>(e))) /
                                      static_cast<std::uint64_t>(e)) + 1;
      magic.push_back(static_cast<std::int64_t>(m));
      shift.push_back(sh);
    }
    for (std::int64_t m : magic) put(m, true);
    for (std::int64_t sh : shift) put(sh, true);
  }
  for (const auto& row : strides)
    for (std::int64_t st : row) put(st, false);
  return out;
}

// ---------------------------------------------------------------------------
// Planning one call.

namespace {

bool is_c_contiguous(const Shape& shape, const Shape& strides, std::size_t item) {
  std::int64_t want = static_cast<std::int64_t>(item);
  for (int d = shape.ndim - 1; d >= 0; --d) {
    if (shape[d] != 1 && strides[d] != want) return false;
    want *= shape[d];
  }
  return true;
}

}  // namespace

LaunchPlan plan_launch(const Program& p, const std::vector<OperandView>& inputs, const std::vector<OperandView>& outputs,
                       int max_vector, bool force_index64, bool rows) {
  if (inputs.size() != p.inputs.size() || outputs.size() != p.outputs.size())
    fail(ErrorCode::Usage, "the program has {} inputs and {} outputs, but {} and {} were given", p.inputs.size(),
         p.outputs.size(), inputs.size(), outputs.size());
  LaunchPlan plan;
  // NumPy broadcasting over the array inputs (the CPU evaluator's rule and message).
  Shape bshape;
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const Param& q = p.inputs[k];
    if (q.weak || q.raw || inputs[k].host_value) continue;
    const Shape& t = inputs[k].shape;
    bshape = broadcast_input(bshape, t, q.name);
  }
  Shape shape = outputs.empty() ? bshape : outputs[0].shape;
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    // As NumPy's `out=`: the inputs must broadcast to the outputs' shape (which
    // may be larger than theirs, e.g. scalars filling an array).
    check_given_output(p, k, outputs[k].dtype, outputs[k].shape, shape, bshape);
  }
  plan.shape = shape;
  plan.n = shape.size();

  // Byte strides of an operand in the outputs' shape (0 where it broadcasts).
  auto aligned_strides = [&](const OperandView& v) {
    Shape st;
    st.ndim = shape.ndim;
    for (int d = 0; d < shape.ndim; ++d) {
      int dv = d - (shape.ndim - v.shape.ndim);
      st[d] = dv >= 0 && v.shape[dv] != 1 ? v.strides[dv] : 0;
    }
    return st;
  };
  KernelLayout& l = plan.layout;
  // Every operand the kernel walks element by element (Contig or Strided), in
  // ABI order (outputs, then inputs): its byte strides in the outputs' shape,
  // itemsize and address.
  struct Walked {
    bool output;
    std::size_t k;
    Shape st;
    std::int64_t item;
    std::uintptr_t address;
  };
  std::vector<Walked> walked;
  bool any_strided = false;
  for (std::size_t k = 0; k < outputs.size(); ++k) {
    std::size_t item = dtype_size(p.outputs[k].dtype);
    Shape st = aligned_strides(outputs[k]);
    walked.push_back({true, k, st, static_cast<std::int64_t>(item), outputs[k].address});
    if (is_c_contiguous(shape, outputs[k].strides, item)) {
      l.outputs.push_back(Access::Contig);
      continue;
    }
    for (int d = 0; d < shape.ndim; ++d)
      if (shape[d] > 1 && st[d] == 0) fail(ErrorCode::Usage, "output '{}' overlaps itself (a zero stride)", p.outputs[k].name);
    l.outputs.push_back(Access::Strided);
    any_strided = true;
  }
  for (std::size_t k = 0; k < inputs.size(); ++k) {
    const Param& q = p.inputs[k];
    const OperandView& v = inputs[k];
    if (q.weak) {
      l.inputs.push_back(Access::Value);
      continue;
    }
    check_input(p, k, v.dtype, v.shape, v.strides);
    if (q.raw) {
      l.inputs.push_back(Access::Raw);
      continue;
    }
    if (v.host_value) {
      if (v.shape.size() != 1) fail(ErrorCode::Usage, "input '{}' is passed by value but has {} elements", q.name, v.shape.size());
      l.inputs.push_back(Access::Value);
      continue;
    }
    Shape st = aligned_strides(v);
    bool all_zero = true;
    for (int d = 0; d < st.ndim; ++d) all_zero = all_zero && (shape[d] == 1 || st[d] == 0);
    if (v.shape.size() == 1 || all_zero) {
      l.inputs.push_back(Access::Uniform);
      continue;
    }
    walked.push_back({false, k, st, static_cast<std::int64_t>(dtype_size(q.dtype)), v.address});
    if (v.shape.size() == plan.n && is_c_contiguous(shape, st, dtype_size(q.dtype))) {
      l.inputs.push_back(Access::Contig);
    } else {
      l.inputs.push_back(Access::Strided);
      any_strided = true;
    }
  }
  auto access = [&](const Walked& w) -> Access& { return w.output ? l.outputs[w.k] : l.inputs[w.k]; };
  std::int64_t limit = std::numeric_limits<std::int32_t>::max();

  // Merges dimensions that every operand of `ops` walks as one (NumPy's
  // coalescing) and drops extent-1 ones; at least one dimension remains.
  struct Dim { std::int64_t extent; std::vector<std::int64_t> st; };
  auto coalesce = [&](const std::vector<const Walked*>& ops) {
    std::vector<Dim> dims;
    for (int d = 0; d < shape.ndim; ++d) {
      if (shape[d] == 1) continue;
      Dim cur{shape[d], {}};
      for (const Walked* w : ops) cur.st.push_back(w->st[d]);
      bool merge = !dims.empty();
      for (std::size_t o = 0; merge && o < ops.size(); ++o) merge = dims.back().st[o] == cur.st[o] * cur.extent;
      if (merge) {
        dims.back().extent *= cur.extent;
        dims.back().st = cur.st;
      } else {
        dims.push_back(cur);
      }
    }
    if (dims.empty()) dims.push_back({1, std::vector<std::int64_t>(ops.size(), 0)});
    return dims;
  };
  // 64-bit indexing where n or some operand's farthest byte offset needs it.
  auto needs_wide = [&](const std::vector<Dim>& dims, std::size_t nops) {
    bool wide = force_index64 || plan.n > limit;
    for (std::size_t o = 0; o < nops; ++o) {
      std::int64_t reach = 0;
      for (const Dim& d : dims) reach += (d.extent - 1) * (d.st[o] < 0 ? -d.st[o] : d.st[o]);
      wide = wide || reach > limit;
    }
    return wide;
  };
  // The widest vector step (from preferred_vec) whose accesses are all aligned:
  // `ok(vec)` tells whether one is.
  auto widest_vec = [&](auto ok) {
    int vec = preferred_vec(p, max_vector);
    while (vec > 1 && !ok(vec)) vec /= 2;
    return vec;
  };
  auto aligned = [](std::int64_t bytes, int vec, std::int64_t item) {
    std::int64_t need = std::min<std::int64_t>(16, vec * item);
    return bytes % need == 0;
  };

  if (any_strided && rows) {
    // Rows: after coalescing over every walked operand, 2+ dimensions and each
    // operand contiguous (outputs) or contiguous or constant (inputs) along the last.
    std::vector<const Walked*> all;
    for (const Walked& w : walked) all.push_back(&w);
    std::vector<Dim> dims = coalesce(all);
    bool fits = dims.size() >= 2;
    for (std::size_t o = 0; fits && o < all.size(); ++o) {
      std::int64_t inner = dims.back().st[o];
      fits = inner == all[o]->item || (!all[o]->output && inner == 0);
    }
    if (fits) {
      l.kind = KernelLayout::Kind::Rows;
      l.ndim = static_cast<int>(dims.size());
      l.index64 = needs_wide(dims, all.size());
      std::vector<std::int64_t> ext;
      std::vector<std::vector<std::int64_t>> rows_st(all.size());
      for (const Dim& d : dims) {
        ext.push_back(d.extent);
        for (std::size_t o = 0; o < all.size(); ++o) rows_st[o].push_back(d.st[o]);
      }
      for (std::size_t o = 0; o < all.size(); ++o) access(*all[o]) = dims.back().st[o] == 0 ? Access::RowScalar : Access::Strided;
      const std::int64_t inner = dims.back().extent;
      // Every row start of a row-contiguous operand aligned to the vector, and
      // no vector wider than a row.
      l.vec = widest_vec([&](int vec) {
        if (vec > inner) return false;
        for (std::size_t o = 0; o < all.size(); ++o) {
          if (access(*all[o]) != Access::Strided) continue;
          if (!aligned(static_cast<std::int64_t>(all[o]->address), vec, all[o]->item)) return false;
          for (std::size_t d = 0; d + 1 < dims.size(); ++d)
            if (!aligned(rows_st[o][d], vec, all[o]->item)) return false;
        }
        return true;
      });
      plan.inner = inner;
      plan.rows = inner > 0 ? plan.n / inner : 0;
      plan.layout_arg = pack_layout_arg(l, ext, rows_st);
      validate_layout(p, l);
      return plan;
    }
    // Tiles: outputs contiguous along the last dimension, some input along the
    // second-last instead (its last-dimension stride neither 0 nor its itemsize).
    const std::size_t nd = dims.size();
    auto is_tiled = [&](std::size_t o) {
      const std::int64_t inner = dims[nd - 1].st[o], item = all[o]->item;
      return !all[o]->output && inner != item && inner != 0 && dims[nd - 2].st[o] == item;
    };
    bool tiles = nd >= 2, any_tiled = false;
    for (std::size_t o = 0; tiles && o < all.size(); ++o) {
      if (all[o]->output) tiles = dims[nd - 1].st[o] == all[o]->item;
      any_tiled = any_tiled || is_tiled(o);
    }
    // The block side: as wide as the vectors go, halved until the tiles fit.
    int side = std::min(kMaxTileVec, preferred_vec(p, max_vector));
    auto shared_bytes = [&](int v) {
      std::size_t b = 0;
      for (std::size_t o = 0; o < all.size(); ++o)
        if (is_tiled(o)) b += tile_bytes(v, static_cast<std::size_t>(all[o]->item));
      return b;
    };
    if (tiles && any_tiled)
      while (side > 1 && shared_bytes(side) > kMaxTileBytes) side /= 2;
    if (tiles && any_tiled && shared_bytes(side) <= kMaxTileBytes) {
      l.kind = KernelLayout::Kind::Tiles;
      l.ndim = static_cast<int>(nd);
      l.vec = side;
      l.index64 = needs_wide(dims, all.size());
      std::vector<std::int64_t> ext;
      std::vector<std::vector<std::int64_t>> tiles_st(all.size());
      for (const Dim& d : dims) {
        ext.push_back(d.extent);
        for (std::size_t o = 0; o < all.size(); ++o) tiles_st[o].push_back(d.st[o]);
      }
      for (std::size_t o = 0; o < all.size(); ++o) access(*all[o]) = is_tiled(o) ? Access::Tiled : Access::Strided;
      // A vector of n elements starts at an element whose index in its
      // contiguous dimension is a multiple of n: aligned when the address and
      // every other stride are.
      auto fits = [&](std::size_t o, int n, std::size_t unit_dim) {
        if (!aligned(static_cast<std::int64_t>(all[o]->address), n, all[o]->item)) return false;
        for (std::size_t d = 0; d < nd; ++d)
          if (d != unit_dim && !aligned(tiles_st[o][d], n, all[o]->item)) return false;
        return true;
      };
      auto widest = [&](auto ok) {
        int n = side;
        while (n > 1 && !ok(n)) n /= 2;
        return n;
      };
      l.load_vec = widest([&](int n) {
        for (std::size_t o = 0; o < all.size(); ++o)
          if (is_tiled(o) && !fits(o, n, nd - 2)) return false;
        return true;
      });
      // Other inputs contiguous along the rows are read in vectors too (the
      // kernel checks their unit stride); the rest one element at a time.
      l.store_vec = widest([&](int n) {
        for (std::size_t o = 0; o < all.size(); ++o)
          if (!is_tiled(o) && dims[nd - 1].st[o] == all[o]->item && !fits(o, n, nd - 1)) return false;
        return true;
      });
      plan.rows = dims[nd - 2].extent;
      plan.inner = dims[nd - 1].extent;
      plan.layout_arg = pack_layout_arg(l, ext, tiles_st);
      validate_layout(p, l);
      return plan;
    }
  }
  if (any_strided) {
    // Strided: coalesced over the strided operands only (contiguous ones index by k).
    std::vector<const Walked*> ops;
    for (const Walked& w : walked)
      if (access(w) == Access::Strided) ops.push_back(&w);
    std::vector<Dim> dims = coalesce(ops);
    l.kind = KernelLayout::Kind::Strided;
    l.ndim = static_cast<int>(dims.size());
    l.index64 = needs_wide(dims, ops.size());
    std::vector<std::int64_t> ext;
    std::vector<std::vector<std::int64_t>> rows_st(ops.size());
    for (const Dim& d : dims) {
      ext.push_back(d.extent);
      for (std::size_t o = 0; o < ops.size(); ++o) rows_st[o].push_back(d.st[o]);
    }
    plan.layout_arg = pack_layout_arg(l, ext, rows_st);
  } else {
    l.index64 = force_index64 || plan.n > limit;
    l.vec = widest_vec([&](int vec) {
      for (const Walked& w : walked)
        if (access(w) == Access::Contig && !aligned(static_cast<std::int64_t>(w.address), vec, w.item)) return false;
      return true;
    });
  }
  validate_layout(p, l);
  return plan;
}

}  // namespace cujit

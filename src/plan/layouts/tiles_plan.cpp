// The tiles layout: no rows layout fits, but after coalescing over every
// walked operand the outputs are contiguous along the last dimension and some
// input along the second-last instead (a transposed view: Tiled); tiles of
// 16*vec a side whose shared memory stays within kMaxTileBytes. Key
// ".v<vec>.l<load_vec>.s<store_vec>.d<ndim>".
#include "plan/layouts/layout_rule.hpp"

#include <algorithm>

namespace cujit {
namespace {

std::string key_fields(const KernelLayout& l) {
  return ".v" + std::to_string(l.vec) + ".l" + std::to_string(l.load_vec) + ".s" + std::to_string(l.store_vec) + ".d" +
         std::to_string(l.ndim);
}

bool parse_fields(const std::vector<std::string>& f, KernelLayout& l) {
  return f.size() == 4 && key_number(f[0], 'v', l.vec) && key_number(f[1], 'l', l.load_vec) && key_number(f[2], 's', l.store_vec) &&
         key_number(f[3], 'd', l.ndim);
}

std::string check(const KernelLayout& l, const AccessSummary& s) {
  if (l.ndim < 2 || l.ndim > kMaxDims) return "ndim must be 2.." + std::to_string(kMaxDims);
  if (s.any_contig || s.any_row_scalar) return "a tiles layout reaches its operands by strides or tiles";
  if (!s.any_tiled) return "a tiles layout needs a tiled input";
  auto side = [](int v) { return v == 1 || v == 2 || v == 4; };
  if (!side(l.vec) || l.vec > kMaxTileVec) return "vec must be 1, 2 or 4";
  if (!side(l.load_vec) || !side(l.store_vec) || l.load_vec > l.vec || l.store_vec > l.vec)
    return "load_vec and store_vec must be 1, 2 or 4 and at most vec";
  return "";
}

// The load and store vectors from the block side: each halved until aligned.
// A vector of n elements starts at an element whose index in its contiguous
// dimension is a multiple of n: aligned when the address and every other
// stride are.
void choose_vectors(const OperandAnalysis& a, const std::vector<const Walked*>& all, const std::vector<Dim>& dims,
                    const std::vector<std::vector<std::int64_t>>& st, KernelLayout& l) {
  const std::size_t nd = dims.size();
  auto fits = [&](std::size_t o, int n, std::size_t unit_dim) {
    if (!aligned(static_cast<std::int64_t>(all[o]->address), n, all[o]->item)) return false;
    for (std::size_t d = 0; d < nd; ++d)
      if (d != unit_dim && !aligned(st[o][d], n, all[o]->item)) return false;
    return true;
  };
  auto widest = [&](auto ok) {
    int n = l.vec;
    while (n > 1 && !ok(n)) n /= 2;
    return n;
  };
  l.load_vec = widest([&](int n) {
    for (std::size_t o = 0; o < all.size(); ++o)
      if (a.access(l, *all[o]) == Access::Tiled && !fits(o, n, nd - 2)) return false;
    return true;
  });
  // Other inputs contiguous along the rows are read in vectors too (the
  // kernel checks their unit stride); the rest one element at a time.
  l.store_vec = widest([&](int n) {
    for (std::size_t o = 0; o < all.size(); ++o)
      if (a.access(l, *all[o]) != Access::Tiled && dims[nd - 1].st[o] == all[o]->item && !fits(o, n, nd - 1)) return false;
    return true;
  });
}

bool choose(const OperandAnalysis& a, LaunchPlan& plan) {
  if (!a.any_strided || !a.rows) return false;
  std::vector<const Walked*> all;
  for (const Walked& w : a.walked) all.push_back(&w);
  const std::vector<Dim> dims = a.coalesce(all);
  const std::size_t nd = dims.size();
  // Tiled: contiguous along the second-last dimension, not the last (its stride there neither 0 nor its itemsize).
  auto is_tiled = [&](std::size_t o) {
    const std::int64_t inner = dims[nd - 1].st[o], item = all[o]->item;
    return !all[o]->output && inner != item && inner != 0 && dims[nd - 2].st[o] == item;
  };
  bool tiles = nd >= 2, any_tiled = false;
  for (std::size_t o = 0; tiles && o < all.size(); ++o) {
    if (all[o]->output) tiles = dims[nd - 1].st[o] == all[o]->item;
    any_tiled = any_tiled || is_tiled(o);
  }
  if (!tiles || !any_tiled) return false;
  // The block side: as wide as the vectors go, halved until the tiles fit.
  auto shared_bytes = [&](int v) {
    std::size_t b = 0;
    for (std::size_t o = 0; o < all.size(); ++o)
      if (is_tiled(o)) b += tile_bytes(v, static_cast<std::size_t>(all[o]->item));
    return b;
  };
  int side = std::min(kMaxTileVec, preferred_vec(a.p, a.max_vector));
  while (side > 1 && shared_bytes(side) > kMaxTileBytes) side /= 2;
  if (shared_bytes(side) > kMaxTileBytes) return false;
  KernelLayout l = a.base;
  l.kind = KernelLayout::Kind::Tiles;
  l.ndim = static_cast<int>(nd);
  l.vec = side;
  l.index64 = a.needs_wide(dims, all.size());
  std::vector<std::int64_t> ext;
  std::vector<std::vector<std::int64_t>> st;
  dims_arrays(dims, all.size(), ext, st);
  for (std::size_t o = 0; o < all.size(); ++o) a.access(l, *all[o]) = is_tiled(o) ? Access::Tiled : Access::Strided;
  choose_vectors(a, all, dims, st, l);
  plan.rows = dims[nd - 2].extent;
  plan.inner = dims[nd - 1].extent;
  plan.layout_arg = pack_layout_arg(l, ext, st);
  plan.layout = l;
  return true;
}

}  // namespace

KernelLayout tiles_layout(const Program& p, int ndim, int vec, bool index64) {
  KernelLayout l = base_layout(p, Access::Tiled);
  for (Access& a : l.outputs) a = Access::Strided;
  l.kind = KernelLayout::Kind::Tiles;
  l.ndim = ndim;
  l.vec = l.load_vec = l.store_vec = vec;
  l.index64 = index64;
  return l;
}

extern const LayoutRule kTilesRule = {KernelLayout::Kind::Tiles, 't', true, true, Access::Tiled,
                                    "only a tiles layout has tiled operands", true, false, key_fields, parse_fields, check, choose};

}  // namespace cujit

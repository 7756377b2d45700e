// What every layout shares; each layout's own part is its unit
// (src/plan/layouts/), and the functions that ask the units are
// src/plan/layout_dispatch.cpp.
#include "plan/layout.hpp"

#include <algorithm>

#include "lang/check.hpp"

namespace cujit {

bool KernelLayout::operator==(const KernelLayout& o) const {
  return kind == o.kind && index64 == o.index64 && vec == o.vec && load_vec == o.load_vec && store_vec == o.store_vec &&
         ndim == o.ndim && outputs == o.outputs && inputs == o.inputs;
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

}  // namespace cujit

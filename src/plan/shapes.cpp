#include "plan/shapes.hpp"

#include <fmt/format.h>

#include <cstdint>

#include "core/fail.hpp"
#include "lang/check.hpp"

namespace cujit {

Shape broadcast_shape(const Program& p, const ArrayView* inputs) {
  Shape s;
  for (std::size_t k = 0; k < p.inputs.size(); ++k) {
    const Param& q = p.inputs[k];
    if (q.weak || q.raw) continue;
    const Shape& t = inputs[k].shape;
    s = broadcast_input(s, t, q.name);
  }
  return s;
}

Shape broadcast_input(const Shape& acc, const Shape& next, const std::string& name) {
  Shape r;
  if (!broadcast(acc, next, r))
    fail(ErrorCode::Data, "shapes do not broadcast: input '{}' has shape {} but the others give {}", name,
         to_string(next), to_string(acc));
  return r;
}

Shape output_shape(const Shape& broadcast, const Shape* given) {
  if (!given) return broadcast;
  if (!broadcasts_to(broadcast, *given))
    fail(ErrorCode::Data, "the output shape {} does not match the inputs' broadcast shape {}", to_string(*given),
         to_string(broadcast));
  return *given;
}

// ---------------------------------------------------------------------------
// Overlap and in-place rules.

namespace {

// Byte range [lo, hi) an operand's elements occupy.
struct ByteRange {
  std::uintptr_t lo = 0, hi = 0;
};
ByteRange extent_of(const ArrayView& v) {
  std::intptr_t lo = 0, hi = 0;
  for (int d = 0; d < v.shape.ndim; ++d) {
    std::intptr_t span = static_cast<std::intptr_t>((v.shape[d] - 1) * v.strides[d]);
    if (span < 0) lo += span;
    else hi += span;
  }
  auto base = reinterpret_cast<std::intptr_t>(v.data);
  return {static_cast<std::uintptr_t>(base + lo), static_cast<std::uintptr_t>(base + hi + static_cast<std::intptr_t>(v.itemsize()))};
}

// Whether input `in` reads exactly the element output `out` writes, at every
// position of the call: same address, same itemsize, same strides over the
// output's shape (so no broadcasting either).
bool same_elements(const ArrayView& in, const ArrayView& out) {
  if (in.data != out.data || in.itemsize() != out.itemsize()) return false;
  const int shift = out.shape.ndim - in.shape.ndim;
  if (shift < 0) return false;
  for (int d = 0; d < out.shape.ndim; ++d) {
    if (out.shape[d] == 1) continue;
    int di = d - shift;
    if (di < 0 || in.shape[di] != out.shape[d] || in.strides[di] != out.strides[d]) return false;
  }
  return true;
}


// The first dimension in which a view repeats elements (a 0 stride over an
// extent above 1), or -1.
int broadcast_dim(const ArrayView& v) {
  for (int d = 0; d < v.shape.ndim; ++d)
    if (v.shape[d] > 1 && v.strides[d] == 0) return d;
  return -1;
}

}  // namespace

void check_overlap(const Program& p, const ArrayView* in, const ArrayView* out) {
  for (std::size_t o = 0; o < p.outputs.size(); ++o) {
    if (out[o].size() == 0) continue;
    const Var& ov = p.outputs[o];
    if (int d = broadcast_dim(out[o]); d >= 0)
      fail(ErrorCode::Usage, "{} '{}' is a broadcast view (stride 0 in dimension {} of extent {}): its elements are shared; {}",
           ov.input >= 0 ? "input" : "output", ov.name, d, out[o].shape[d],
           ov.input >= 0 ? "pass a copy to update in place" : "write to a new array");
    // An input updated in place is passed as its own output, or (a program
    // that can fail at run time) as a new array copied into it after success.
    const bool own = ov.input >= 0 && in[ov.input].data == out[o].data;
    if (own && (in[ov.input].device != out[o].device || in[ov.input].shape != out[o].shape || !same_elements(in[ov.input], out[o])))
      fail(ErrorCode::Usage, "output '{}' is the input updated in place: it must be the input's own array", ov.name);
    if (ov.input >= 0) {
      const ArrayView& x = in[ov.input];
      for (std::size_t k = 0; k < p.inputs.size(); ++k) {
        const ArrayView& v = in[k];
        if (static_cast<int>(k) == ov.input || p.inputs[k].weak || v.device != x.device || v.size() == 0) continue;
        ByteRange e = extent_of(v), ex = extent_of(x);
        if (e.lo < ex.hi && ex.lo < e.hi)
          fail(ErrorCode::Usage,
               "input '{}' shares memory with input '{}', which the program updates in place; pass a copy of '{}'",
               p.inputs[k].name, ov.name, p.inputs[k].name);
      }
    }
    ByteRange eo = extent_of(out[o]);
    for (std::size_t q = 0; q < o; ++q) {
      if (out[q].size() == 0) continue;
      ByteRange e = extent_of(out[q]);
      if (e.lo < eo.hi && eo.lo < e.hi)
        fail(ErrorCode::Usage, "outputs '{}' and '{}' overlap in memory; give each its own array", p.outputs[q].name,
             p.outputs[o].name);
    }
    for (std::size_t k = 0; k < p.inputs.size(); ++k) {
      const ArrayView& v = in[k];
      if (own && static_cast<int>(k) == ov.input) continue;
      // Weak scalars are passed by value; memory of another device (host
      // scalars of a GPU call) cannot alias the output's.
      if (p.inputs[k].weak || v.device != out[o].device || v.size() == 0) continue;
      ByteRange e = extent_of(v);
      if (!(e.lo < eo.hi && eo.lo < e.hi)) continue;
      if (p.inputs[k].raw)
        fail(ErrorCode::Usage, "output '{}' overlaps raw input '{}', which other elements may still read; write to a new array",
             ov.name, p.inputs[k].name);
      if (!same_elements(v, out[o]))
        fail(ErrorCode::Usage,
             "output '{}' overlaps input '{}' other than element for element (only exactly in place, the same view, "
             "is allowed); write to a new array",
             ov.name, p.inputs[k].name);
    }
  }
}

void check_inout(const Program& p, const ArrayView* in, const Shape& shape) {
  for (const Var& v : p.outputs) {
    if (v.input < 0) continue;
    const ArrayView& x = in[v.input];
    if (x.shape != shape)
      fail(ErrorCode::Data,
           "input '{}' is updated in place, so it must have the result's shape {}, but it has shape {}; an array "
           "that is broadcast cannot hold the result (as in NumPy); give '{}' the full shape",
           v.name, to_string(shape), to_string(x.shape), v.name);
    if (int d = broadcast_dim(x); d >= 0)
      fail(ErrorCode::Data,
           "input '{}' is updated in place but is a broadcast view (stride 0 in dimension {} of extent {}): its "
           "elements are shared; pass a copy",
           v.name, d, x.shape[d]);
  }
}

void check_given_output(const Program& p, std::size_t k, DType dtype, const Shape& shape, const Shape& call_shape,
                        const Shape& broadcast) {
  if (shape != call_shape || !broadcasts_to(broadcast, call_shape))
    fail(ErrorCode::Data, "output '{}' has shape {}, but the inputs broadcast to {}", p.outputs[k].name, to_string(shape),
         to_string(broadcast));
  if (dtype != p.outputs[k].dtype)
    fail(ErrorCode::Data, "output '{}' is {}, but the program makes it {}", p.outputs[k].name, dtype_name(dtype),
         dtype_name(p.outputs[k].dtype));
}

void check_input(const Program& p, std::size_t k, DType dtype, const Shape& shape, const Shape& strides) {
  const Param& q = p.inputs[k];
  if (q.weak) return;
  if (dtype != q.dtype)
    fail(ErrorCode::Data, "input '{}' is {}, but the program was checked for {}", q.name, dtype_name(dtype), dtype_name(q.dtype));
  if (q.raw) {
    std::int64_t want = static_cast<std::int64_t>(dtype_size(q.dtype));
    for (int d = shape.ndim - 1; d >= 0; --d) {
      if (shape[d] != 1 && strides[d] != want)
        fail(ErrorCode::Usage, "raw parameter '{}' must be C-contiguous; pass a contiguous copy", q.name);
      want *= shape[d];
    }
  }
}

}  // namespace cujit

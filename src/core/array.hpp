// Shape products, checked. Shape::size() multiplies freely; every place that
// allocates for, or loops over, a shape a user gave (generators, --shape,
// .npy headers, API shapes) goes through here first, so 2^64 elements is an
// error and not a wrapped, small (or zero) count.
#pragma once
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>

#include "cujit/array.hpp"

namespace cujit {

// Bytes of a C-contiguous array of `shape` and `dtype`; fail(ErrorCode::Data)
// on a negative extent, or when the elements or the bytes do not fit in int64
// (NumPy's "array is too big"). `what` names the array in the message.
std::size_t checked_nbytes(const Shape& shape, DType dtype, std::string_view what = "array");

// The element count, or -1 when it does not fit in int64.
std::int64_t checked_size(const Shape& shape);

// Copies C-contiguous `src` into `dst` (the same dtype and shape, any strides,
// either of them in host or device memory): an array updated in place where
// it was copied to run (a host array on the GPU, a device array on the CPU)
// gets its result back this way. Returns when the data has arrived. A strided
// `dst` in device memory is updated through the host: the bytes it spans come
// down, its elements are written there, and the span goes back up.
void copy_into(const ArrayView& dst, const ArrayView& src);

class StreamFence;
struct ArrayInternals {
  // A device array from the pool for a call: ready in the legacy default
  // stream's order (fence null), or on the fence's stream once the fence's
  // after_allocations() ran, its free ordered after the fence's record_use()
  // (src/core/pool.hpp). Array::empty instead waits, where it must, so that
  // its memory is ready on any stream at once.
  static Array device(DType dtype, const Shape& shape, int device, std::shared_ptr<StreamFence> fence);
  static void adopt(Array& a, std::shared_ptr<void> owner, const ArrayView& view);
};

}  // namespace cujit

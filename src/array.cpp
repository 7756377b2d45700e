#include "cujit/array.hpp"

#include <cstdlib>
#include <new>

#include "fail.hpp"

namespace cujit {

Shape::Shape(std::initializer_list<std::int64_t> d) {
  if (d.size() > static_cast<std::size_t>(kMaxDims))
    fail(ErrorCode::Data, "arrays of more than {} dimensions are not supported", kMaxDims);
  for (auto v : d) dims[ndim++] = v;
}

std::int64_t Shape::size() const {
  std::int64_t s = 1;
  for (int k = 0; k < ndim; ++k) s *= dims[k];
  return s;
}

bool Shape::operator==(const Shape& o) const {
  if (ndim != o.ndim) return false;
  for (int k = 0; k < ndim; ++k)
    if (dims[k] != o.dims[k]) return false;
  return true;
}

Shape ArrayView::contiguous_strides(const Shape& shape, DType dtype) {
  Shape s;
  s.ndim = shape.ndim;
  std::int64_t acc = static_cast<std::int64_t>(dtype_size(dtype));
  for (int k = shape.ndim - 1; k >= 0; --k) {
    s[k] = acc;
    acc *= shape[k] > 0 ? shape[k] : 1;
  }
  return s;
}

bool ArrayView::is_c_contiguous() const {
  if (size() == 0) return true;  // an empty array has no element to misplace
  std::int64_t acc = static_cast<std::int64_t>(itemsize());
  for (int k = shape.ndim - 1; k >= 0; --k) {
    if (shape[k] != 1 && strides[k] != acc) return false;
    acc *= shape[k];
  }
  return true;
}

HostArray::HostArray(DType dtype, const Shape& shape) {
  for (int k = 0; k < shape.ndim; ++k)
    if (shape[k] < 0) fail(ErrorCode::Data, "negative extent {} in array shape", shape[k]);
  view_.dtype = dtype;
  view_.shape = shape;
  view_.strides = ArrayView::contiguous_strides(shape, dtype);
  std::size_t bytes = static_cast<std::size_t>(shape.size()) * dtype_size(dtype);
  std::size_t rounded = ((bytes + 63) / 64) * 64;
  void* p = std::aligned_alloc(64, rounded ? rounded : 64);
  if (!p) fail(ErrorCode::Data, "out of host memory allocating {} bytes", bytes);
  buffer_ = std::shared_ptr<void>(p, std::free);
  view_.data = p;
}

}  // namespace cujit

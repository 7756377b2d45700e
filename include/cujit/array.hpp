// Arrays as cujit sees them: a non-owning ArrayView (pointer, dtype, shape,
// byte strides, device) and an owning host array. Strides are in bytes, as in
// NumPy and CuPy, so any NumPy view (sliced, transposed, broadcast with stride
// 0) can be described without a copy.
#pragma once
#include <array>
#include <cstdint>
#include <initializer_list>
#include <memory>

#include "cujit/dtype.hpp"

namespace cujit {

inline constexpr int kMaxDims = 8;  // fixed so a view never allocates

struct Device {
  enum Kind : std::uint8_t { CPU, CUDA } kind = CPU;
  int id = 0;
  bool operator==(const Device& o) const { return kind == o.kind && (kind == CPU || id == o.id); }
  bool operator!=(const Device& o) const { return !(*this == o); }
};

struct Shape {
  int ndim = 0;
  std::array<std::int64_t, kMaxDims> dims{};
  Shape() = default;
  Shape(std::initializer_list<std::int64_t> d);
  std::int64_t operator[](int k) const { return dims[k]; }
  std::int64_t& operator[](int k) { return dims[k]; }
  std::int64_t size() const;  // product of the extents; 1 for a 0-d shape
  bool operator==(const Shape& o) const;
  bool operator!=(const Shape& o) const { return !(*this == o); }
};

struct ArrayView {
  void* data = nullptr;
  DType dtype = DType::Float32;
  Shape shape;
  Shape strides;  // bytes
  Device device;

  std::int64_t size() const { return shape.size(); }
  std::size_t itemsize() const { return dtype_size(dtype); }
  bool is_c_contiguous() const;
  // C-contiguous byte strides for a shape.
  static Shape contiguous_strides(const Shape& shape, DType dtype);
};

// An owning, C-contiguous host array (64-byte aligned).
class HostArray {
 public:
  HostArray() = default;
  HostArray(DType dtype, const Shape& shape);
  const ArrayView& view() const { return view_; }
  ArrayView& view() { return view_; }
  DType dtype() const { return view_.dtype; }
  const Shape& shape() const { return view_.shape; }
  std::int64_t size() const { return view_.size(); }
  std::size_t nbytes() const { return static_cast<std::size_t>(size()) * view_.itemsize(); }
  void* data() { return view_.data; }
  const void* data() const { return view_.data; }
  template <class T> T* as() { return static_cast<T*>(view_.data); }
  template <class T> const T* as() const { return static_cast<const T*>(view_.data); }

 private:
  std::shared_ptr<void> buffer_;
  ArrayView view_;
};

}  // namespace cujit

// Arrays as cujit sees them: a non-owning ArrayView (pointer, dtype, shape,
// byte strides, device), an owning host array and an owning Array in host or
// device memory. Strides are in bytes, as in
// NumPy and CuPy, so any NumPy view (sliced, transposed, broadcast with stride
// 0) can be described without a copy.
#pragma once
#include <array>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <string>
#include <type_traits>

#include "cujit/dtype.hpp"
#include "cujit/export.hpp"

namespace cujit {

inline constexpr int kMaxDims = 8;  // fixed so a view never allocates

struct Device {
  enum Kind : std::uint8_t { CPU, CUDA } kind = CPU;
  int id = 0;
  static Device cpu() { return Device{CPU, 0}; }
  static Device cuda(int ordinal) { return Device{CUDA, ordinal}; }
  bool operator==(const Device& o) const { return kind == o.kind && (kind == CPU || id == o.id); }
  bool operator!=(const Device& o) const { return !(*this == o); }
};

// One extent of a Shape, from any integer type, so `Shape{v.size()}` (a
// size_t) and `Shape{n, 3}` compile without a narrowing error.
struct Extent {
  template <class I, std::enable_if_t<std::is_integral_v<I> && !std::is_same_v<I, bool>, int> = 0>
  constexpr Extent(I v) : value(static_cast<std::int64_t>(v)) {}  // NOLINT: implicit by design
  std::int64_t value;
};

struct CUJIT_API Shape {
  int ndim = 0;
  std::array<std::int64_t, kMaxDims> dims{};
  Shape() = default;
  // Shape{1000}, Shape{rows, cols}; more than kMaxDims extents is a Data error.
  Shape(std::initializer_list<Extent> d);
  std::int64_t operator[](int k) const { return dims[k]; }
  std::int64_t& operator[](int k) { return dims[k]; }
  std::int64_t size() const;  // product of the extents; 1 for a 0-d shape
  bool operator==(const Shape& o) const;
  bool operator!=(const Shape& o) const { return !(*this == o); }
};

// NumPy's text for a shape: "(2, 3)", "(5,)", "()".
CUJIT_API std::string to_string(const Shape& s);
// NumPy broadcasting of `a` with `b`; false (and `out` untouched) when they do not broadcast.
CUJIT_API bool broadcast(const Shape& a, const Shape& b, Shape& out);
// Whether an array of shape `from` broadcasts to `to` (NumPy's rule for `out=`).
CUJIT_API bool broadcasts_to(const Shape& from, const Shape& to);

struct CUJIT_API ArrayView {
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

  // A C-contiguous view of memory the caller owns and keeps alive, the
  // dtype taken from the pointer's element type (float -> float32,
  // std::int16_t -> int16, std::complex<double> -> complex128, bool):
  //
  //   std::vector<float> v(1000);
  //   auto x = cujit::ArrayView::host(v.data(), {v.size()});
  //
  // A const pointer gives a view for inputs: writing through it (passing it
  // as an output) is the caller's error. float16 and bfloat16 have no C++
  // type: name the dtype (host(p, DType::Float16, shape)).
  template <class T>
  static ArrayView host(T* data, const Shape& shape) {
    return wrap(const_cast<std::remove_const_t<T>*>(data), dtype_of<std::remove_const_t<T>>, shape, Device::cpu());
  }
  static ArrayView host(const void* data, DType dtype, const Shape& shape) {
    return wrap(const_cast<void*>(data), dtype, shape, Device::cpu());
  }
  // The same for memory of CUDA device `device` (from cuMemAlloc, cudaMalloc,
  // another library's tensor).
  template <class T>
  static ArrayView cuda(T* data, const Shape& shape, int device = 0) {
    return wrap(const_cast<std::remove_const_t<T>*>(data), dtype_of<std::remove_const_t<T>>, shape, Device::cuda(device));
  }
  static ArrayView cuda(const void* data, DType dtype, const Shape& shape, int device = 0) {
    return wrap(const_cast<void*>(data), dtype, shape, Device::cuda(device));
  }

 private:
  static ArrayView wrap(void* data, DType dtype, const Shape& shape, Device device);
};

// An owning, C-contiguous host array (64-byte aligned).
class CUJIT_API HostArray {
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
  // What keeps the memory alive (shared with an Array made from this one).
  const std::shared_ptr<void>& owner() const { return buffer_; }

 private:
  std::shared_ptr<void> buffer_;
  ArrayView view_;
};

// An owning, C-contiguous array in host memory or in the memory of one CUDA
// device. Copies of an Array share the memory (as std::shared_ptr does); the
// memory is freed when the last copy goes. Transfers are synchronous: they
// return when the data has arrived (work queued on non-blocking streams of
// the caller is not waited for: synchronize those first).
//
//   Array x = Array::empty(DType::Float32, {1000}, Device{Device::CUDA, 0});
//   x.copy_from(host_view);            // host -> device
//   Array back = x.to_host();          // device -> host
class CUJIT_API Array {
 public:
  Array() = default;
  // Uninitialized memory. Device memory comes from cujit's memory pool
  // (cujit/pool.hpp) and is ready for work on any stream.
  static Array empty(DType dtype, const Shape& shape, Device device = {});
  // A C-contiguous copy of `src` (any strides, any device) on `device`.
  static Array copy_of(const ArrayView& src, Device device);
  // Adopts a host array without copying.
  explicit Array(HostArray host);

  const ArrayView& view() const { return view_; }
  operator const ArrayView&() const { return view_; }  // so an Array passes where a view is taken
  DType dtype() const { return view_.dtype; }
  const Shape& shape() const { return view_.shape; }
  int ndim() const { return view_.shape.ndim; }
  std::int64_t size() const { return view_.size(); }
  std::size_t nbytes() const { return static_cast<std::size_t>(size()) * view_.itemsize(); }
  Device device() const { return view_.device; }
  void* data() const { return view_.data; }
  template <class T> T* as() const { return static_cast<T*>(view_.data); }
  // False for a default-constructed Array.
  explicit operator bool() const { return owner_ != nullptr; }
  const std::shared_ptr<void>& owner() const { return owner_; }

  Array to_host() const;              // a host copy
  Array to_device(int device) const;  // a copy on CUDA device `device`
  // Copies `src` (same dtype and shape; any strides, any device) into this array.
  void copy_from(const ArrayView& src);

 private:
  friend struct ArrayInternals;  // cujit's own constructors (src/core/array.hpp)
  std::shared_ptr<void> owner_;
  ArrayView view_;
};

}  // namespace cujit

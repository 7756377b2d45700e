#include "cujit/array.hpp"

#include <cstdlib>
#include <cstring>
#include <new>
#include <vector>

#include "core/driver.hpp"
#include "core/fail.hpp"
#include "core/host_pool.hpp"
#include "core/array.hpp"

namespace cujit {

Shape::Shape(std::initializer_list<Extent> d) {
  if (d.size() > static_cast<std::size_t>(kMaxDims))
    fail(ErrorCode::Data, "arrays of more than {} dimensions are not supported", kMaxDims);
  for (Extent v : d) dims[ndim++] = v.value;
}

std::int64_t Shape::size() const {
  std::int64_t s = 1;
  for (int k = 0; k < ndim; ++k) s *= dims[k];
  return s;
}

std::int64_t checked_size(const Shape& shape) {
  std::int64_t n = 1;
  bool zero = false, over = false;
  for (int k = 0; k < shape.ndim; ++k) {
    std::int64_t d = shape[k];
    if (d < 0) return -1;
    if (d == 0) zero = true;
    else if (__builtin_mul_overflow(n, d, &n)) over = true;
  }
  if (zero) return 0;
  return over ? -1 : n;
}

std::size_t checked_nbytes(const Shape& shape, DType dtype, std::string_view what) {
  for (int k = 0; k < shape.ndim; ++k)
    if (shape[k] < 0) fail(ErrorCode::Data, "negative extent {} in the shape of {}", shape[k], what);
  std::int64_t n = checked_size(shape), bytes = 0;
  // As NumPy, the extents other than 0 must fit too: the rest of cujit
  // multiplies extents (strides) freely, even for an empty array.
  std::int64_t nonzero = 1;
  bool over = n < 0;
  for (int k = 0; k < shape.ndim && !over; ++k)
    if (shape[k] > 0) over = __builtin_mul_overflow(nonzero, shape[k], &nonzero);
  if (over || __builtin_mul_overflow(nonzero, static_cast<std::int64_t>(dtype_size(dtype)), &bytes))
    fail(ErrorCode::Data, "{} of shape {} and dtype {} is too large (its size in bytes does not fit in 64 bits)", what,
         to_string(shape), dtype_name(dtype));
  return static_cast<std::size_t>(n) * dtype_size(dtype);
}

bool Shape::operator==(const Shape& o) const {
  if (ndim != o.ndim) return false;
  for (int k = 0; k < ndim; ++k)
    if (dims[k] != o.dims[k]) return false;
  return true;
}

std::string to_string(const Shape& s) {
  std::string t = "(";
  for (int d = 0; d < s.ndim; ++d) t += std::to_string(s[d]) + (s.ndim == 1 ? "," : d + 1 < s.ndim ? ", " : "");
  return t + ")";
}

bool broadcast(const Shape& a, const Shape& b, Shape& out) {
  Shape r;
  r.ndim = std::max(a.ndim, b.ndim);
  for (int d = 0; d < r.ndim; ++d) {
    int da = d - (r.ndim - a.ndim), db = d - (r.ndim - b.ndim);
    std::int64_t x = da >= 0 ? a[da] : 1, y = db >= 0 ? b[db] : 1;
    if (x != y && x != 1 && y != 1) return false;
    r[d] = x == 1 ? y : x;
  }
  out = r;
  return true;
}

bool broadcasts_to(const Shape& from, const Shape& to) {
  Shape r;
  return broadcast(from, to, r) && r == to;
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

ArrayView ArrayView::wrap(void* data, DType dtype, const Shape& shape, Device device) {
  for (int k = 0; k < shape.ndim; ++k)
    if (shape[k] < 0) fail(ErrorCode::Data, "negative extent {} in array shape {}", shape[k], to_string(shape));
  if (!data && shape.size() > 0) fail(ErrorCode::Usage, "a view of {} elements needs memory: the pointer is null", shape.size());
  ArrayView v;
  v.data = data;
  v.dtype = dtype;
  v.shape = shape;
  v.strides = contiguous_strides(shape, dtype);
  v.device = device;
  return v;
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
  std::size_t bytes = checked_nbytes(shape, dtype);
  view_.dtype = dtype;
  view_.shape = shape;
  view_.strides = ArrayView::contiguous_strides(shape, dtype);
  // Large arrays come from the host pool (core/host_pool.hpp: memory the
  // kernel has already faulted in and zeroed, when a kept block fits).
  if (bytes >= kHostPoolMin) {
    const HostBlock b = host_pool_take(bytes);
    if (!b.p) fail(ErrorCode::Data, "out of host memory allocating {} bytes", bytes);
    buffer_ = std::shared_ptr<void>(b.p, [n = b.bytes](void* q) { host_pool_give({q, n}); });
    view_.data = b.p;
    return;
  }
  constexpr std::size_t align = 64;
  const std::size_t rounded = ((bytes + align - 1) / align) * align;
  void* p = std::aligned_alloc(align, rounded ? rounded : align);
  if (!p) fail(ErrorCode::Data, "out of host memory allocating {} bytes", bytes);
  buffer_ = std::shared_ptr<void>(p, std::free);
  view_.data = p;
}

// ---------------------------------------------------------------- Array

namespace {

// Copies a host view of any strides into contiguous host memory at `dst`.
void pack_host(void* dst, const ArrayView& src) {
  std::size_t item = src.itemsize();
  std::int64_t n = src.size();
  if (n == 0) return;
  if (src.is_c_contiguous()) {
    std::memcpy(dst, src.data, static_cast<std::size_t>(n) * item);
    return;
  }
  auto* out = static_cast<unsigned char*>(dst);
  const auto* base = static_cast<const unsigned char*>(src.data);
  std::int64_t idx[kMaxDims] = {};
  const int nd = src.shape.ndim;
  std::int64_t off = 0;
  for (std::int64_t k = 0; k < n; ++k) {
    std::memcpy(out + static_cast<std::size_t>(k) * item, base + off, item);
    // An odometer over the multi-index keeps the byte offset without divisions.
    for (int d = nd - 1; d >= 0; --d) {
      if (++idx[d] < src.shape[d]) {
        off += src.strides[d];
        break;
      }
      off -= (src.shape[d] - 1) * src.strides[d];
      idx[d] = 0;
    }
  }
}

// The inverse: contiguous host memory at `src` into a host view of any strides.
void unpack_host(const ArrayView& dst, const void* src) {
  std::size_t item = dst.itemsize();
  std::int64_t n = dst.size();
  if (n == 0) return;
  if (dst.is_c_contiguous()) {
    std::memmove(dst.data, src, static_cast<std::size_t>(n) * item);
    return;
  }
  const auto* in = static_cast<const unsigned char*>(src);
  auto* base = static_cast<unsigned char*>(dst.data);
  std::int64_t idx[kMaxDims] = {};
  const int nd = dst.shape.ndim;
  std::int64_t off = 0;
  for (std::int64_t k = 0; k < n; ++k) {
    std::memcpy(base + off, in + static_cast<std::size_t>(k) * item, item);
    for (int d = nd - 1; d >= 0; --d) {
      if (++idx[d] < dst.shape[d]) {
        off += dst.strides[d];
        break;
      }
      off -= (dst.shape[d] - 1) * dst.strides[d];
      idx[d] = 0;
    }
  }
}

}  // namespace

void copy_into(const ArrayView& dst, const ArrayView& src) {
  if (src.dtype != dst.dtype || src.shape != dst.shape || !src.is_c_contiguous())
    fail(ErrorCode::Internal, "copy_into: a {} {} source for a {} {} destination", dtype_name(src.dtype),
         to_string(src.shape), dtype_name(dst.dtype), to_string(dst.shape));
  const std::size_t bytes = static_cast<std::size_t>(dst.size()) * dst.itemsize();
  if (bytes == 0 || dst.data == src.data) return;
  const auto src_ptr = reinterpret_cast<CUdeviceptr>(src.data);
  if (dst.is_c_contiguous()) {
    const auto dst_ptr = reinterpret_cast<CUdeviceptr>(dst.data);
    if (dst.device.kind == Device::CPU && src.device.kind == Device::CPU) {
      std::memmove(dst.data, src.data, bytes);
    } else if (dst.device.kind == Device::CPU) {
      memcpy_dtoh(src.device.id, dst.data, src_ptr, bytes);
    } else if (src.device.kind == Device::CPU) {
      memcpy_htod(dst.device.id, dst_ptr, src.data, bytes);
      synchronize(dst.device.id, nullptr);
    } else if (src.device.id == dst.device.id) {
      memcpy_dtod(dst.device.id, dst_ptr, src_ptr, bytes);
    } else {
      memcpy_peer(dst.device.id, dst_ptr, src.device.id, src_ptr, bytes);
    }
    return;
  }
  Array staging;
  const void* packed = src.data;
  if (src.device.kind != Device::CPU) {
    staging = Array::copy_of(src, Device::cpu());
    packed = staging.data();
  }
  if (dst.device.kind == Device::CPU) {
    unpack_host(dst, packed);
    return;
  }
  std::int64_t lo = 0, hi = static_cast<std::int64_t>(dst.itemsize());
  for (int d = 0; d < dst.shape.ndim; ++d) {
    std::int64_t reach = (dst.shape[d] - 1) * dst.strides[d];
    (reach < 0 ? lo : hi) += reach;
  }
  std::vector<unsigned char> span(static_cast<std::size_t>(hi - lo));
  const CUdeviceptr at = reinterpret_cast<CUdeviceptr>(dst.data) + lo;
  memcpy_dtoh(dst.device.id, span.data(), at, span.size());
  ArrayView host = dst;
  host.data = span.data() - lo;
  host.device = Device::cpu();
  unpack_host(host, packed);
  memcpy_htod(dst.device.id, at, span.data(), span.size());
  synchronize(dst.device.id, nullptr);
}

Array::Array(HostArray host) : owner_(host.owner()), view_(host.view()) {
  if (!owner_) owner_ = std::make_shared<char>(0);  // a default HostArray: keep the Array non-null
}

namespace {
Array device_array(std::shared_ptr<DeviceBuffer> buf, DType dtype, const Shape& shape, Device device) {
  Array a;
  ArrayView v;
  v.data = buf->data();
  v.dtype = dtype;
  v.shape = shape;
  v.strides = ArrayView::contiguous_strides(shape, dtype);
  v.device = device;
  ArrayInternals::adopt(a, std::move(buf), v);
  return a;
}
}  // namespace

void ArrayInternals::adopt(Array& a, std::shared_ptr<void> owner, const ArrayView& view) {
  a.owner_ = std::move(owner);
  a.view_ = view;
}

Array ArrayInternals::device(DType dtype, const Shape& shape, int device, std::shared_ptr<StreamFence> fence) {
  std::size_t bytes = checked_nbytes(shape, dtype);
  auto buf = std::make_shared<DeviceBuffer>(device, bytes, std::move(fence));
  return device_array(std::move(buf), dtype, shape, Device::cuda(device));
}

Array Array::empty(DType dtype, const Shape& shape, Device device) {
  std::size_t bytes = checked_nbytes(shape, dtype);
  if (device.kind == Device::CPU) return Array(HostArray(dtype, shape));
  return device_array(std::make_shared<DeviceBuffer>(device.id, bytes), dtype, shape, device);
}

Array Array::copy_of(const ArrayView& src, Device device) {
  Array a = empty(src.dtype, src.shape, device);
  a.copy_from(src);
  return a;
}

Array Array::to_host() const { return copy_of(view_, Device::cpu()); }
Array Array::to_device(int device) const { return copy_of(view_, Device::cuda(device)); }

void Array::copy_from(const ArrayView& src) {
  if (!owner_) fail(ErrorCode::Usage, "Array::copy_from into an empty Array (make it with Array::empty)");
  if (src.dtype != view_.dtype || src.shape != view_.shape)
    fail(ErrorCode::Usage, "Array::copy_from: the source is {} {}, this array {} {}", dtype_name(src.dtype),
         to_string(src.shape), dtype_name(view_.dtype), to_string(view_.shape));
  const std::size_t bytes = nbytes();
  if (bytes == 0) return;
  const bool to_host = view_.device.kind == Device::CPU;
  if (src.device.kind == Device::CPU) {
    if (to_host) {
      pack_host(view_.data, src);
      return;
    }
    if (src.is_c_contiguous()) {
      memcpy_htod(view_.device.id, reinterpret_cast<CUdeviceptr>(view_.data), src.data, bytes);
    } else {
      HostArray packed(src.dtype, src.shape);
      pack_host(packed.data(), src);
      memcpy_htod(view_.device.id, reinterpret_cast<CUdeviceptr>(view_.data), packed.data(), bytes);
    }
    // cuMemcpyHtoD from pageable memory may return before the DMA lands;
    // work on other (non-blocking) streams must see the data.
    synchronize(view_.device.id, nullptr);
    return;
  }
  // The source is on a device. A strided one is packed on the host: the bytes
  // its view spans come down in one copy and are gathered there. A copy needs
  // no JIT this way (copy_on_device, in launch.hpp, packs on the device with a
  // kernel for callers that want the GPU to do it).
  const int from = src.device.id;
  if (!src.is_c_contiguous()) {
    std::int64_t lo = 0, hi = static_cast<std::int64_t>(dtype_size(src.dtype));
    for (int d = 0; d < src.shape.ndim; ++d) {
      std::int64_t reach = (src.shape[d] - 1) * src.strides[d];
      (reach < 0 ? lo : hi) += reach;
    }
    std::vector<unsigned char> span(static_cast<std::size_t>(hi - lo));
    memcpy_dtoh(from, span.data(), reinterpret_cast<CUdeviceptr>(src.data) + lo, span.size());
    ArrayView host = src;
    host.data = span.data() - lo;
    host.device = Device::cpu();
    HostArray packed(src.dtype, src.shape);
    pack_host(packed.data(), host);
    copy_from(packed.view());
    return;
  }
  const auto src_ptr = reinterpret_cast<CUdeviceptr>(src.data);
  if (to_host) {
    memcpy_dtoh(from, view_.data, src_ptr, bytes);
  } else if (view_.device.id == from) {
    memcpy_dtod(from, reinterpret_cast<CUdeviceptr>(view_.data), src_ptr, bytes);
  } else {
    memcpy_peer(view_.device.id, reinterpret_cast<CUdeviceptr>(view_.data), from, src_ptr, bytes);
  }
}

}  // namespace cujit

#include "cujit/dlpack.hpp"

#include <new>
#include <optional>

#include "core/fail.hpp"

namespace cujit {

DLDataType to_dlpack_dtype(DType t) {
  DLDataType d{};
  d.lanes = 1;
  d.bits = static_cast<std::uint8_t>(dtype_size(t) * 8);
  if (is_bool(t)) d.code = kDLPackBoolCode;
  else if (is_signed_int(t)) d.code = kDLInt;
  else if (is_unsigned_int(t)) d.code = kDLUInt;
  else if (t == DType::BFloat16) d.code = kDLBfloat;
  else if (is_float(t)) d.code = kDLFloat;
  else d.code = kDLComplex;
  return d;
}

std::optional<DType> from_dlpack_dtype(DLDataType d) {
  if (d.lanes != 1) return std::nullopt;
  switch (d.code) {
    case kDLInt:
      switch (d.bits) {
        case 8: return DType::Int8;
        case 16: return DType::Int16;
        case 32: return DType::Int32;
        case 64: return DType::Int64;
      }
      break;
    case kDLUInt:
      switch (d.bits) {
        case 8: return DType::UInt8;
        case 16: return DType::UInt16;
        case 32: return DType::UInt32;
        case 64: return DType::UInt64;
      }
      break;
    case kDLFloat:
      switch (d.bits) {
        case 16: return DType::Float16;
        case 32: return DType::Float32;
        case 64: return DType::Float64;
      }
      break;
    case kDLBfloat:
      if (d.bits == 16) return DType::BFloat16;
      break;
    case kDLComplex:
      if (d.bits == 64) return DType::Complex64;
      if (d.bits == 128) return DType::Complex128;
      break;
    case kDLPackBoolCode:
      if (d.bits == 8) return DType::Bool;
      break;
    default: break;
  }
  return std::nullopt;
}

ArrayView from_dlpack(const DLManagedTensor* t) {
  if (!t) fail(ErrorCode::Usage, "from_dlpack: null DLManagedTensor");
  const DLTensor& x = t->dl_tensor;
  ArrayView v;
  auto dt = from_dlpack_dtype(x.dtype);
  if (!dt)
    fail(ErrorCode::Data, "from_dlpack: unsupported DLPack type (code {}, {} bits, {} lanes)", static_cast<int>(x.dtype.code),
         static_cast<int>(x.dtype.bits), static_cast<int>(x.dtype.lanes));
  v.dtype = *dt;
  switch (x.device.device_type) {
    case kDLCPU:
    case kDLCUDAHost: v.device = Device::cpu(); break;
    case kDLCUDA:
    case kDLCUDAManaged: v.device = Device::cuda(x.device.device_id); break;
    default:
      fail(ErrorCode::Data, "from_dlpack: the tensor is on DLPack device type {} (id {}); cujit takes CPU and CUDA memory",
           static_cast<int>(x.device.device_type), x.device.device_id);
  }
  if (x.ndim < 0 || x.ndim > kMaxDims)
    fail(ErrorCode::Data, "from_dlpack: the tensor has {} dimensions; cujit takes 0 to {}", x.ndim, kMaxDims);
  v.shape.ndim = v.strides.ndim = x.ndim;
  for (int d = 0; d < x.ndim; ++d) {
    if (x.shape[d] < 0) fail(ErrorCode::Data, "from_dlpack: negative extent {} in dimension {}", x.shape[d], d);
    v.shape[d] = x.shape[d];
  }
  const auto item = static_cast<std::int64_t>(dtype_size(v.dtype));
  if (x.strides) {
    for (int d = 0; d < x.ndim; ++d) v.strides[d] = x.strides[d] * item;  // DLPack counts elements
  } else {
    v.strides = ArrayView::contiguous_strides(v.shape, v.dtype);  // absent strides: C order
  }
  v.data = static_cast<char*>(x.data) + x.byte_offset;
  return v;
}

namespace {

// What the exported tensor points at and owns: the array (so its memory
// lives) and the shape and strides arrays DLTensor refers to.
struct Export {
  DLManagedTensor tensor{};
  Array array;
  std::int64_t shape[kMaxDims] = {};
  std::int64_t strides[kMaxDims] = {};
};

void delete_export(DLManagedTensor* self) { delete static_cast<Export*>(self->manager_ctx); }

}  // namespace

DLManagedTensor* to_dlpack(Array a) {
  if (!a) fail(ErrorCode::Usage, "to_dlpack of an empty Array");
  auto* e = new Export;
  const ArrayView& v = a.view();
  const auto item = static_cast<std::int64_t>(v.itemsize());
  for (int d = 0; d < v.shape.ndim; ++d) {
    e->shape[d] = v.shape[d];
    e->strides[d] = v.strides[d] / item;  // an Array is C-contiguous: strides divide evenly
  }
  DLTensor& x = e->tensor.dl_tensor;
  x.data = v.data;
  x.device.device_type = v.device.kind == Device::CPU ? kDLCPU : kDLCUDA;
  x.device.device_id = v.device.kind == Device::CPU ? 0 : v.device.id;
  x.ndim = v.shape.ndim;
  x.dtype = to_dlpack_dtype(v.dtype);
  x.shape = e->shape;
  x.strides = e->strides;
  x.byte_offset = 0;
  e->array = std::move(a);
  e->tensor.manager_ctx = e;
  e->tensor.deleter = delete_export;
  return &e->tensor;
}

}  // namespace cujit

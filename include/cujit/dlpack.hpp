// DLPack interop: arrays from and to other libraries (PyTorch, CuPy, JAX, ...)
// without copies. Only the DLManagedTensor API is used, which every DLPack
// release since 0.2 has (Debian 12 ships 0.6, Ubuntu 24.04 a newer one).
//
//   DLManagedTensor* t = ...;                    // from a producer
//   cujit::ArrayView x = cujit::from_dlpack(t);  // borrows t's memory
//   ... use x while t is alive, then t->deleter(t)
//
//   DLManagedTensor* out = cujit::to_dlpack(array);  // the consumer calls out->deleter(out)
#pragma once
#include <dlpack/dlpack.h>

#include "cujit/array.hpp"
#include "cujit/export.hpp"

namespace cujit {

// DLPack's code for bool (kDLBool), which DLPack 0.6 does not name yet.
inline constexpr std::uint8_t kDLPackBoolCode = 6;

// A view of `t`'s memory (no copy; the caller keeps `t` alive while the view is
// used). Strides convert from elements to bytes; absent strides mean C order.
// Devices: kDLCPU and kDLCUDAHost give host views; kDLCUDA and kDLCUDAManaged
// give views on that CUDA device. Types: bool (kDLBool 8, or kDLUInt 8 is uint8),
// int/uint 8-64, float 16/32/64, bfloat 16, complex 64/128, one lane. Anything
// else is an ErrorCode::Data error naming what was found.
CUJIT_API ArrayView from_dlpack(const DLManagedTensor* t);

// A DLManagedTensor that shares `a`'s memory and keeps it alive until the
// consumer calls its deleter (exactly once). bool is exported as kDLBool.
CUJIT_API DLManagedTensor* to_dlpack(Array a);

// The DLPack type of a dtype, and back (nullopt when cujit has no such dtype).
CUJIT_API DLDataType to_dlpack_dtype(DType t);
CUJIT_API std::optional<DType> from_dlpack_dtype(DLDataType t);

}  // namespace cujit

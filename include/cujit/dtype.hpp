// The 15 element types of the cujit language (NumPy's, plus bfloat16).
#pragma once
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include "cujit/export.hpp"

namespace cujit {

// Order matters: it is NumPy's kind order (b < i/u < f < c) within which the
// promotion rules in src/types.cpp are written.
enum class DType : std::uint8_t {
  Bool,
  Int8, Int16, Int32, Int64,
  UInt8, UInt16, UInt32, UInt64,
  Float16, BFloat16, Float32, Float64,
  Complex64, Complex128,
};
inline constexpr int kNumDTypes = 15;

// The canonical name ("float32"), as the language and NumPy spell it.
CUJIT_API std::string_view dtype_name(DType t);
// Canonical names and the aliases `double` and `half`; nullopt otherwise.
CUJIT_API std::optional<DType> dtype_from_name(std::string_view name);
CUJIT_API std::size_t dtype_size(DType t);

constexpr bool is_bool(DType t) { return t == DType::Bool; }
constexpr bool is_signed_int(DType t) { return t >= DType::Int8 && t <= DType::Int64; }
constexpr bool is_unsigned_int(DType t) { return t >= DType::UInt8 && t <= DType::UInt64; }
constexpr bool is_integer(DType t) { return is_signed_int(t) || is_unsigned_int(t); }
constexpr bool is_float(DType t) { return t >= DType::Float16 && t <= DType::Float64; }
constexpr bool is_complex(DType t) { return t >= DType::Complex64; }
constexpr bool is_half(DType t) { return t == DType::Float16 || t == DType::BFloat16; }

}  // namespace cujit

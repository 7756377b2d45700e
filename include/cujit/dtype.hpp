// The 15 element types of the cujit language (NumPy's, plus bfloat16).
#pragma once
#include <complex>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include "cujit/export.hpp"

namespace cujit {

// Order matters: it is NumPy's kind order (b < i/u < f < c) within which the
// promotion rules in src/lang/types.cpp are written.
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
// NumPy's spellings, as np.dtype(...) takes them on 64-bit Linux: the names
// above, the array-protocol codes with or without a byte order ("f4", "<f8",
// "=i8", "|u1", "c16", "b1"), NumPy's C-style names (`float` and `double` are
// float64, `int` and `long` int64, `single` float32, `half` float16, `intc`
// int32, `uint` uint64, `complex` complex128, `bool_`, ...), each also as
// "np.NAME" or "numpy.NAME". One-letter codes ('f', 'd') are not taken: a single
// letter is a placeholder (T). nullopt otherwise: dtype_spelling_problem says why.
CUJIT_API std::optional<DType> dtype_from_numpy(std::string_view spelling);
// The message for a spelling dtype_from_numpy refuses: "unknown dtype 'flaot32';
// did you mean 'float32'? ..." with the list of dtypes, or why ('>f4' is big-endian).
CUJIT_API std::string dtype_spelling_problem(std::string_view spelling);

// The dtype of a C++ element type: dtype_of<float> is DType::Float32. Defined
// for bool, the fixed-width integers (and long long), float, double and
// std::complex<float|double>; anything else does not compile.
template <class T> struct DTypeOf;
template <> struct DTypeOf<bool> { static constexpr DType value = DType::Bool; };
template <> struct DTypeOf<std::int8_t> { static constexpr DType value = DType::Int8; };
template <> struct DTypeOf<std::int16_t> { static constexpr DType value = DType::Int16; };
template <> struct DTypeOf<std::int32_t> { static constexpr DType value = DType::Int32; };
template <> struct DTypeOf<std::uint8_t> { static constexpr DType value = DType::UInt8; };
template <> struct DTypeOf<std::uint16_t> { static constexpr DType value = DType::UInt16; };
template <> struct DTypeOf<std::uint32_t> { static constexpr DType value = DType::UInt32; };
// long and long long are distinct types of 64 bits; int64_t is one of them.
template <> struct DTypeOf<long> { static constexpr DType value = sizeof(long) == 8 ? DType::Int64 : DType::Int32; };
template <> struct DTypeOf<long long> { static constexpr DType value = DType::Int64; };
template <> struct DTypeOf<unsigned long> {
  static constexpr DType value = sizeof(unsigned long) == 8 ? DType::UInt64 : DType::UInt32;
};
template <> struct DTypeOf<unsigned long long> { static constexpr DType value = DType::UInt64; };
template <> struct DTypeOf<float> { static constexpr DType value = DType::Float32; };
template <> struct DTypeOf<double> { static constexpr DType value = DType::Float64; };
template <> struct DTypeOf<std::complex<float>> { static constexpr DType value = DType::Complex64; };
template <> struct DTypeOf<std::complex<double>> { static constexpr DType value = DType::Complex128; };
template <class T> inline constexpr DType dtype_of = DTypeOf<T>::value;

constexpr bool is_bool(DType t) { return t == DType::Bool; }
constexpr bool is_signed_int(DType t) { return t >= DType::Int8 && t <= DType::Int64; }
constexpr bool is_unsigned_int(DType t) { return t >= DType::UInt8 && t <= DType::UInt64; }
constexpr bool is_integer(DType t) { return is_signed_int(t) || is_unsigned_int(t); }
constexpr bool is_float(DType t) { return t >= DType::Float16 && t <= DType::Float64; }
constexpr bool is_complex(DType t) { return t >= DType::Complex64; }
constexpr bool is_half(DType t) { return t == DType::Float16 || t == DType::BFloat16; }

}  // namespace cujit

// One argument of a cujit call: an array, or a scalar.
//
//   k(x, 2.5, out)                   // an ArrayView/Array, a weak double
//   k(x, Arg::typed(DType::Float32, 2.5), out)   // a strong float32 scalar
//
// Scalars follow NumPy 2's NEP 50: a C++ integer, floating or complex value is
// *weak* (it behaves as a literal would: `int8 array + 3` stays int8), a typed
// scalar (Arg::typed, or a host 0-d array) is *strong*. A C++ bool is a strong
// bool (NumPy's lowest type, so the difference never shows); a uint64 above
// INT64_MAX is a strong uint64.
#pragma once
#include <complex>
#include <cstdint>
#include <type_traits>

#include "cujit/array.hpp"
#include "cujit/export.hpp"

struct CUstream_st;

namespace cujit {

// A CUDA stream: CUstream or cudaStream_t (both are CUstream_st*). nullptr is
// the legacy default stream.
using StreamHandle = ::CUstream_st*;

class CUJIT_API Arg {
 public:
  enum class Kind : std::uint8_t { Array, WeakInt, WeakFloat, WeakComplex, Typed };

  Arg(const ArrayView& v) : kind_(Kind::Array), view_(v) {}  // NOLINT: implicit by design
  Arg(const Array& a) : kind_(Kind::Array), view_(a.view()) {}
  Arg(const HostArray& a) : kind_(Kind::Array), view_(a.view()) {}
  template <class T, std::enable_if_t<std::is_arithmetic_v<T>, int> = 0>
  Arg(T v) {  // NOLINT
    if constexpr (std::is_same_v<T, bool>) {
      src_ = Src::Bool;
      b_ = v;
      make_typed(DType::Bool);
    } else if constexpr (std::is_integral_v<T> && std::is_unsigned_v<T> && sizeof(T) == 8) {
      // Above INT64_MAX no weak (int64) scalar holds it: it becomes a strong uint64.
      src_ = Src::UInt;
      u_ = static_cast<std::uint64_t>(v);
      if (u_ > static_cast<std::uint64_t>(INT64_MAX)) make_typed(DType::UInt64);
      else kind_ = Kind::WeakInt, src_ = Src::Int, i_ = static_cast<std::int64_t>(u_), init_weak();
    } else if constexpr (std::is_integral_v<T>) {
      kind_ = Kind::WeakInt;
      i_ = static_cast<std::int64_t>(v);
      init_weak();
    } else {
      kind_ = Kind::WeakFloat;
      src_ = Src::Complex;
      c_ = {static_cast<double>(v), 0.0};
      init_weak();
    }
  }
  template <class T>
  Arg(std::complex<T> v)  // NOLINT
      : kind_(Kind::WeakComplex), src_(Src::Complex), c_(static_cast<double>(v.real()), static_cast<double>(v.imag())) {
    init_weak();
  }

  // A strong scalar of `dtype`, converted as the language's cast does
  // (float -> int truncates and saturates, complex -> real keeps the real part).
  template <class T>
  static Arg typed(DType dtype, T value) {
    return Arg(value).as_typed(dtype);
  }

  Kind kind() const { return kind_; }
  bool is_array() const { return kind_ == Kind::Array; }
  bool is_weak() const { return kind_ == Kind::WeakInt || kind_ == Kind::WeakFloat || kind_ == Kind::WeakComplex; }
  // The array; for a scalar, a host 0-d view of its value (a weak one as
  // int64, float64 or complex128).
  const ArrayView& view() const { return view_; }
  // This scalar converted to a strong `dtype` (as the language's cast does).
  Arg as_typed(DType dtype) const {
    Arg a(*this);
    a.make_typed(dtype);
    return a;
  }
  std::int64_t int_value() const { return i_; }
  std::complex<double> complex_value() const { return c_; }  // WeakFloat: the imaginary part is 0

  Arg(const Arg& o) { *this = o; }
  Arg& operator=(const Arg& o);

 private:
  enum class Src : std::uint8_t { Int, UInt, Complex, Bool };  // what the value was given as
  void make_typed(DType t);
  void init_weak();

  Kind kind_ = Kind::WeakInt;
  Src src_ = Src::Int;
  bool b_ = false;
  std::int64_t i_ = 0;
  std::uint64_t u_ = 0;
  std::complex<double> c_;
  ArrayView view_;
  alignas(16) unsigned char bytes_[16] = {};  // a Typed scalar's value; view_ points here
};

}  // namespace cujit

#include "lang/types.hpp"

namespace cujit {

namespace {
// NumPy's kind order for same_kind casting: b < u < i < f < c.
int kind_rank(DType t) {
  if (is_bool(t)) return 0;
  if (is_unsigned_int(t)) return 1;
  if (is_signed_int(t)) return 2;
  if (is_float(t)) return 3;
  return 4;
}
// The smallest float that holds every value of an integer (or bool) type.
DType float_for_int(DType t) {
  std::size_t s = dtype_size(t);
  return s == 1 ? DType::Float16 : s == 2 ? DType::Float32 : DType::Float64;
}
int float_rank(DType t) { return t == DType::Float64 ? 2 : t == DType::Float32 ? 1 : 0; }
DType complex_for_float(DType f) { return f == DType::Float64 ? DType::Complex128 : DType::Complex64; }
DType complex_part(DType c) { return c == DType::Complex128 ? DType::Float64 : DType::Float32; }

DType promote_floats(DType a, DType b) {
  if (a == b) return a;
  if (is_half(a) && is_half(b)) return DType::Float32;  // float16 with bfloat16
  return float_rank(a) >= float_rank(b) ? a : b;
}
}  // namespace

DType promote_types(DType a, DType b) {
  if (a == b) return a;
  if (is_bool(a)) return b;
  if (is_bool(b)) return a;
  if (is_integer(a) && is_integer(b)) {
    if (is_signed_int(a) == is_signed_int(b)) return dtype_size(a) >= dtype_size(b) ? a : b;
    DType s = is_signed_int(a) ? a : b, u = is_signed_int(a) ? b : a;
    if (dtype_size(s) > dtype_size(u)) return s;
    switch (dtype_size(u)) {
      case 1: return DType::Int16;
      case 2: return DType::Int32;
      case 4: return DType::Int64;
      default: return DType::Float64;  // int64 with uint64: no integer holds both
    }
  }
  if (is_complex(a) || is_complex(b)) {
    DType c = is_complex(a) ? a : b, o = is_complex(a) ? b : a;
    DType part = is_complex(o) ? complex_part(o) : is_float(o) ? o : float_for_int(o);
    return complex_for_float(promote_floats(complex_part(c), part));
  }
  // At least one float.
  DType fa = is_float(a) ? a : float_for_int(a);
  DType fb = is_float(b) ? b : float_for_int(b);
  // An int8/uint8 fits bfloat16 as well as float16: keep the float operand's type.
  if (!is_float(a) && fa == DType::Float16 && is_half(fb)) return fb;
  if (!is_float(b) && fb == DType::Float16 && is_half(fa)) return fa;
  return promote_floats(fa, fb);
}

bool can_cast_safe(DType from, DType to) { return promote_types(from, to) == to; }

bool can_cast_same_kind(DType from, DType to) {
  return can_cast_safe(from, to) || kind_rank(from) <= kind_rank(to);
}

}  // namespace cujit

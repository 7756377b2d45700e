// NumPy 2 type promotion (numpy.result_type) over the 15 dtypes, and casting rules.
#pragma once
#include "cujit/dtype.hpp"

namespace cujit {

// result_type of two strong (array) dtypes. bfloat16 promotes like float16
// with an 8-bit exponent; bfloat16 with float16 gives float32.
DType promote_types(DType a, DType b);
// numpy.can_cast(from, to, 'safe').
bool can_cast_safe(DType from, DType to);
// numpy.can_cast(from, to, 'same_kind').
bool can_cast_same_kind(DType from, DType to);

}  // namespace cujit

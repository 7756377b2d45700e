// Arrays as text, exactly as NumPy 2 prints them with its default print
// options: print(arr), i.e. str(arr).
#pragma once
#include <string>

#include "cujit/array.hpp"

namespace cujit {

// What `print(arr)` shows in NumPy 2.4 for the same host array: nested
// brackets, line wrapping at 75 columns, summarization with '...' past 1000
// elements (3 at each edge), shortest round-trip floats with at most 8
// fractional digits, padded to a common width. A 0-d array prints as its
// scalar does (`str(arr[()])`).
//
// bfloat16, which NumPy only knows through ml_dtypes (whose elements print
// C's "%g", e.g. 0.100098 for 0.1), prints as NumPy would print a float type
// of its precision: shortest round-trip digits for bfloat16 (0.1), and NumPy's
// per-type limit for positional notation 10**finfo.precision, which is 100
// for bfloat16 (as it is 1000 for float16 and 1e6 for float32).
//
// Knowingly not NumPy: only the default print options exist (no precision,
// linewidth, suppress, sign or legacy settings), only str() (no repr with
// "array(...)" and a dtype), and bfloat16 as above. Errors (a view on a CUDA
// device, a bad shape) are ErrorCode::Data.
std::string format_array(const ArrayView& a);

}  // namespace cujit

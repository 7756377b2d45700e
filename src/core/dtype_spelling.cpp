// NumPy's spellings of a dtype (what np.dtype(...) takes) for every place a
// user names one outside the language: ElementwiseKernel parameter types,
// jitrun -t and -i ...:DTYPE, jitcache -i/-t, precompile manifests.
#include <array>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "cujit/dtype.hpp"
#include "core/names.hpp"

namespace cujit {

namespace {

struct Alias {
  std::string_view name;
  DType dtype;
};
// NumPy 2's names on a 64-bit Linux (np.dtype(name)): C's long is 64 bits, and
// NumPy's `float`, `int`, `complex` are Python's, so 64 bits wide.
constexpr std::array<Alias, 23> kAliases = {{
    {"bool_", DType::Bool},        {"byte", DType::Int8},          {"ubyte", DType::UInt8},
    {"short", DType::Int16},       {"ushort", DType::UInt16},      {"intc", DType::Int32},
    {"uintc", DType::UInt32},      {"int_", DType::Int64},         {"int", DType::Int64},
    {"long", DType::Int64},        {"longlong", DType::Int64},     {"intp", DType::Int64},
    {"uint", DType::UInt64},       {"ulong", DType::UInt64},       {"ulonglong", DType::UInt64},
    {"uintp", DType::UInt64},      {"half", DType::Float16},       {"single", DType::Float32},
    {"double", DType::Float64},    {"float", DType::Float64},      {"csingle", DType::Complex64},
    {"cdouble", DType::Complex128}, {"complex", DType::Complex128},
}};

// The array-protocol codes: kind letter and byte count ("f4", "u1", "c16", "b1").
constexpr std::array<Alias, 14> kCodes = {{
    {"b1", DType::Bool},   {"i1", DType::Int8},    {"i2", DType::Int16},   {"i4", DType::Int32},
    {"i8", DType::Int64},  {"u1", DType::UInt8},   {"u2", DType::UInt16},  {"u4", DType::UInt32},
    {"u8", DType::UInt64}, {"f2", DType::Float16}, {"f4", DType::Float32}, {"f8", DType::Float64},
    {"c8", DType::Complex64}, {"c16", DType::Complex128},
}};

std::string_view strip_module(std::string_view s) {
  for (std::string_view m : {"np.", "numpy."})
    if (s.substr(0, m.size()) == m) {
      s.remove_prefix(m.size());
      // NumPy 2 has no np.float, np.int or np.complex (Python's types were never dtypes there).
      if (s == "float" || s == "int" || s == "complex") return "np.";
      return s;
    }
  return s;
}

std::optional<DType> from_code(std::string_view s) {
  // '<' little-endian, '=' native, '|' not applicable: all the same here.
  if (!s.empty() && (s[0] == '<' || s[0] == '=' || s[0] == '|')) s.remove_prefix(1);
  for (const Alias& a : kCodes)
    if (a.name == s) return a.dtype;
  return std::nullopt;
}

}  // namespace

std::optional<DType> dtype_from_numpy(std::string_view spelling) {
  if (auto t = from_code(spelling)) return t;
  std::string_view name = strip_module(spelling);
  if (name.size() < 2) return std::nullopt;  // one letter: a placeholder (T), never NumPy's 'f' or 'd'
  if (auto t = dtype_from_name(name)) return t;
  for (const Alias& a : kAliases)
    if (a.name == name) return a.dtype;
  return std::nullopt;
}

std::string dtype_spelling_problem(std::string_view spelling) {
  std::string s(spelling);
  if (!s.empty() && s[0] == '>')
    return fmt::format("'{}' is big-endian: cujit arrays are little-endian, write '<{}' (a big-endian .npy file is "
                       "converted when it is read)", s, s.substr(1));
  std::string_view name = strip_module(spelling);
  if (name == "longdouble" || name == "float128" || name == "clongdouble" || name == "complex256" || name == "f16" ||
      name == "c32")
    return fmt::format("'{}' has no cujit dtype: the widest are float64 and complex128", s);
  if (name.size() == 1)
    return fmt::format("unknown dtype '{}': NumPy's one-letter codes are not taken (a single letter is a placeholder "
                       "such as T); write the name, e.g. float32 or f4", s);
  std::vector<std::string_view> names;
  for (int k = 0; k < kNumDTypes; ++k) names.push_back(dtype_name(static_cast<DType>(k)));
  for (const Alias& a : kAliases) names.push_back(a.name);
  for (const Alias& a : kCodes) names.push_back(a.name);
  std::string lower(name);
  for (char& c : lower)
    if (c >= 'A' && c <= 'Z') c = static_cast<char>(c - 'A' + 'a');
  std::string near = closest_name(lower, names.data(), names.size());
  if (!near.empty() && near != lower) {
    // Suggest the canonical name of what the near miss means.
    std::string canonical(dtype_name(*dtype_from_numpy(near)));
    near = near == canonical ? "'" + near + "'" : fmt::format("'{}' ({})", near, canonical);
  } else if (!near.empty()) {
    near = "'" + std::string(dtype_name(*dtype_from_numpy(near))) + "'";  // only the case differed
  }
  return fmt::format("unknown dtype '{}'{}; the dtypes are bool, int8, int16, int32, int64, uint8, uint16, uint32, "
                     "uint64, float16, bfloat16, float32, float64, complex64, complex128 (NumPy's spellings work "
                     "too: f4, <f8, i8, u1, c16, float, double, np.float32)",
                     s, near.empty() ? "" : " (did you mean " + near + "?)");
}

}  // namespace cujit

#include "cujit/dtype.hpp"

#include <array>

namespace cujit {

namespace {
struct Info {
  std::string_view name;
  std::size_t size;
};
constexpr std::array<Info, kNumDTypes> kInfo = {{
    {"bool", 1}, {"int8", 1}, {"int16", 2}, {"int32", 4}, {"int64", 8},
    {"uint8", 1}, {"uint16", 2}, {"uint32", 4}, {"uint64", 8},
    {"float16", 2}, {"bfloat16", 2}, {"float32", 4}, {"float64", 8},
    {"complex64", 8}, {"complex128", 16},
}};
}  // namespace

std::string_view dtype_name(DType t) { return kInfo[static_cast<int>(t)].name; }
std::size_t dtype_size(DType t) { return kInfo[static_cast<int>(t)].size; }

std::optional<DType> dtype_from_name(std::string_view name) {
  for (int k = 0; k < kNumDTypes; ++k)
    if (kInfo[k].name == name) return static_cast<DType>(k);
  if (name == "double") return DType::Float64;
  if (name == "half") return DType::Float16;
  return std::nullopt;
}

}  // namespace cujit

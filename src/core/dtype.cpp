#include "cujit/dtype.hpp"

#include <array>

namespace cujit {

namespace {
struct Info {
  std::string_view name;
  std::size_t size;
};
constexpr std::array<Info, kNumDTypes> kInfo = {{
#define DTYPE(Id, name, size, ...) {name, size},
#include "core/dtypes.def"
#undef DTYPE
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

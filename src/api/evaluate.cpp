#include "cujit/evaluate.hpp"

#include "core/fail.hpp"

namespace cujit {

const Array& NamedArrays::operator[](std::string_view name) const {
  for (const NamedArray& a : *this)
    if (a.name == name) return a.array;
  for (const std::string& u : updated)
    if (u == name)
      fail(ErrorCode::Usage, "'{}' is an input updated in place: its result is in the array passed for it, not among the outputs", name);
  std::string all;
  for (const NamedArray& a : *this) all += (all.empty() ? "'" : ", '") + a.name + "'";
  fail(ErrorCode::Usage, "the program has no output '{}' (its outputs: {})", name, all.empty() ? "none" : all);
}

Array& NamedArrays::operator[](std::string_view name) {
  return const_cast<Array&>(static_cast<const NamedArrays&>(*this)[name]);
}

bool NamedArrays::contains(std::string_view name) const {
  for (const NamedArray& a : *this)
    if (a.name == name) return true;
  return false;
}

// evaluate() itself is in src/api/pipeline.cpp: the one path from program
// text to outputs, which jitrun shares.

}  // namespace cujit

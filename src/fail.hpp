// The single place cujit::Error is raised from (see include/cujit/error.hpp).
#pragma once
#include <fmt/format.h>

#include <string>

#include "cujit/error.hpp"

namespace cujit {

[[noreturn]] void fail(ErrorCode code, std::string message);

template <class... Args>
[[noreturn]] void fail(ErrorCode code, fmt::format_string<Args...> f, Args&&... args) {
  fail(code, fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace cujit

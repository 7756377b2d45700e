// The single place cujit::Error (and its CompileError) is raised from (see
// include/cujit/error.hpp).
#pragma once
#include <fmt/format.h>

#include <string>

#include "cujit/error.hpp"

namespace cujit {

[[noreturn]] void fail(ErrorCode code, std::string message);
// A failed compile: the message plus its parts as CompileError's fields.
[[noreturn]] void fail(ErrorCode code, std::string message, CompileError::Parts parts);

template <class... Args>
[[noreturn]] void fail(ErrorCode code, fmt::format_string<Args...> f, Args&&... args) {
  fail(code, fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace cujit

#include "core/fail.hpp"

namespace cujit {

void fail(ErrorCode code, std::string message) { throw Error(code, message); }

void fail(ErrorCode code, std::string message, CompileError::Parts parts) {
  throw CompileError(code, message, std::move(parts));
}

}  // namespace cujit

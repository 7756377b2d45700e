#include "fail.hpp"

namespace cujit {

void fail(ErrorCode code, std::string message) { throw Error(code, message); }

}  // namespace cujit

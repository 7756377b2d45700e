// The one error type of cujit. Every failure, from a typo in a program to a
// driver fault, is a cujit::Error whose code is also the exit code of the tools.
#pragma once
#include <stdexcept>
#include <string>
#include "cujit/export.hpp"

namespace cujit {

enum class ErrorCode : int {
  Usage = 1,     // bad command line or API misuse (wrong argument count, shapes)
  Program = 2,   // the user's program does not parse or check
  Data = 3,      // bad input or output data: files, shapes, dtypes, values
  Device = 4,    // CUDA driver, device or NVRTC environment problem
  Internal = 5,  // a bug of cujit (e.g. generated source failed to compile)
};

class CUJIT_API Error : public std::runtime_error {
 public:
  Error(ErrorCode code, const std::string& message) : std::runtime_error(message), code_(code) {}
  ErrorCode code() const noexcept { return code_; }
  int exit_code() const noexcept { return static_cast<int>(code_); }

 private:
  ErrorCode code_;
};

}  // namespace cujit

// The one error type of cujit. Every failure, from a typo in a program to a
// driver fault, is a cujit::Error whose code is also the exit code of the tools.
#pragma once
#include <memory>
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

// A failed NVRTC compile, its parts as fields so an application can show or
// log them apart (what() holds them all, for those that print one string):
//
//   try { k(x, y); } catch (const cujit::CompileError& e) { log(e.log()); }
//
// The code is Program when the source was the caller's (raw CUDA mode),
// Device when the toolkit is at fault (a header NVRTC cannot find), and
// Internal when cujit generated code that does not compile.
class CUJIT_API CompileError : public Error {
 public:
  struct Parts {
    std::string stage;    // "compile" (NVRTC to the cubin) or "ptx" (a separate compile to PTX)
    std::string log;      // NVRTC's log, as NVRTC wrote it
    std::string options;  // the NVRTC options, space-separated
    std::string source;   // the source, each line prefixed with its number ("12 | ...")
  };
  CompileError(ErrorCode code, const std::string& message, Parts parts)
      : Error(code, message), parts_(std::make_shared<const Parts>(std::move(parts))) {}
  const std::string& stage() const noexcept { return parts_->stage; }
  const std::string& log() const noexcept { return parts_->log; }
  const std::string& options() const noexcept { return parts_->options; }
  const std::string& source() const noexcept { return parts_->source; }

 private:
  std::shared_ptr<const Parts> parts_;  // shared: copying an exception must not throw
};

}  // namespace cujit

// What a call throws: the cujit::Error's message, after checking its code;
// a test failure when nothing is thrown. Shared by the unit and GPU tests.
#pragma once
#include <string>

#include "catch.hpp"
#include "cujit/error.hpp"

namespace cujit::test {

template <class F>
std::string error_of(F&& f, ErrorCode want) {
  try {
    f();
  } catch (const Error& e) {
    CHECK(e.code() == want);
    return e.what();
  }
  FAIL("no cujit::Error was thrown");
  return "";
}

}  // namespace cujit::test

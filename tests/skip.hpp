// A test case that cannot run here says so to CTest, never "passed".
// Catch2 2.x (Debian 12) has no SKIP, so the case prints one line that the
// CTest entry's SKIP_REGULAR_EXPRESSION matches (CUJIT_SKIP_REGEX in
// tests/CMakeLists.txt) and returns. Cases that can skip carry a tag of their
// own and run in a CTest entry of their own, so that one skip never hides the
// results of the cases that did run.
#pragma once
#include <cstdio>
#include <string>

#define CUJIT_SKIP(reason)                                                      \
  do {                                                                          \
    std::printf("CUJIT_SKIPPED: %s\n", std::string(reason).c_str());            \
    std::fflush(stdout);                                                        \
    return;                                                                     \
  } while (0)

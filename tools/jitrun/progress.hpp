// jitrun's progress line for a long CPU evaluation: on stderr, only when it
// is a terminal and not under CI ($CI set), and only once the run has taken
// two seconds, so short runs and logs stay clean. Redrawn at most ten times a
// second and erased when the run ends.
#pragma once
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>

namespace cujit::jitrun {

class Progress {
 public:
  static bool wanted() { return isatty(STDERR_FILENO) && !std::getenv("CI"); }

  void operator()(std::int64_t done, std::int64_t total) {
    using namespace std::chrono;
    auto now = steady_clock::now();
    if (done >= total) {
      if (shown_) std::fputs("\r\033[K", stderr);
      shown_ = false;
      return;
    }
    double elapsed = duration<double>(now - start_).count();
    if (elapsed < 2.0 || now - last_ < milliseconds(100)) return;
    last_ = now;
    double frac = total > 0 ? static_cast<double>(done) / static_cast<double>(total) : 0.0;
    double left = frac > 0 ? elapsed * (1 - frac) / frac : 0.0;
    std::fprintf(stderr, "\r\033[Kjitrun: evaluating on the CPU: %3.0f%% of %lld elements, %.0f s, about %.0f s left",
                 frac * 100, static_cast<long long>(total), elapsed, left);
    std::fflush(stderr);
    shown_ = true;
  }

 private:
  std::chrono::steady_clock::time_point start_ = std::chrono::steady_clock::now(), last_{};
  bool shown_ = false;
};

}  // namespace cujit::jitrun

// The kernel cache's concurrency under ThreadSanitizer (CTest cache_tsan):
// built from cache/*.cpp alone with -fsanitize=thread, so it costs seconds,
// not a sanitizer build of the whole project. Threads ask for new and cached
// kernels through one shared cache and through fresh caches on the same
// folder (the disk and the lock files), with an entry check, while another
// thread lists, verifies and prunes. Any data race is a TSan report (exit 66);
// a wrong kernel or a wrong compile count is exit 1.
#include <unistd.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "cache/kernel_cache.hpp"

using namespace cujit::cache;

int main() {
  const char* base = std::getenv("TMPDIR");
  std::string templ = std::string(base && *base ? base : "/tmp") + "/cujit-tsan.XXXXXX";
  if (!::mkdtemp(templ.data())) return 1;
  Config cfg;
  cfg.dir = templ + "/cache";
  std::atomic<int> warnings{0};
  cfg.warn = [&](const std::string& line) {
    std::fprintf(stderr, "%s\n", line.c_str());
    warnings++;
  };
  constexpr int kThreads = 16, kCalls = 400, kKernels = 10;
  KernelCache shared(cfg);
  std::atomic<int> compiles{0}, wrong{0}, errors{0};
  std::atomic<bool> done{false};
  std::thread maintainer([&] {
    KernelCache m(cfg);
    while (!done) {
      m.list();
      m.verify();
      PruneOptions po;
      po.older_than = std::chrono::hours(1);  // removes nothing young: only scans
      m.prune(po);
      std::this_thread::sleep_for(std::chrono::milliseconds(2));
    }
  });
  std::vector<std::thread> pool;
  for (int t = 0; t < kThreads; ++t)
    pool.emplace_back([&, t] {
      for (int i = 0; i < kCalls; ++i) {
        const int k = i % 3 == 0 ? i / (kCalls / kKernels) : (t + i) % (i / (kCalls / kKernels) + 1);
        const Key key = make_key("kernel " + std::to_string(k), "", "sm_90", 1);
        const std::string want = "CUBIN " + std::to_string(k);
        auto compile = [&] {
          compiles++;
          return Entry{"sm_90", want, "PTX", ""};
        };
        Check check = [&](const Entry& e) { return e.cubin == want ? std::string() : "wrong kernel"; };
        try {
          std::shared_ptr<const Entry> e;
          if (i % 50 == 49) {
            KernelCache fresh(cfg);
            e = fresh.get_or_compile(key, "sm_90", compile, check);
          } else {
            e = shared.get_or_compile(key, "sm_90", compile, check);
          }
          if (e->cubin != want) wrong++;
        } catch (const std::exception& ex) {
          std::fprintf(stderr, "error: %s\n", ex.what());
          errors++;
        }
      }
    });
  for (auto& th : pool) th.join();
  done = true;
  maintainer.join();
  std::printf("cache_tsan: %d threads x %d calls, %d kernels: %d compiles, %d wrong, %d errors, %d warnings\n",
              kThreads, kCalls, kKernels, compiles.load(), wrong.load(), errors.load(), warnings.load());
  std::string rm = "rm -rf '" + templ + "'";
  (void)std::system(rm.c_str());
  return compiles == kKernels && wrong == 0 && errors == 0 && warnings == 0 ? 0 : 1;
}

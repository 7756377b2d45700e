// Helper for the multi-process cache test (tests/unit/test_cache.cpp): one
// process of the crowd that asks for the same new kernel at once.
//
//   cache_stress CACHE_DIR COMPILE_LOG RESULTS THREADS
//
// Waits for end of file on stdin (the parent's starting gun), then asks for
// one kernel from THREADS threads. Each compile appends a line to COMPILE_LOG
// and yields a kernel naming this process, so a second compile anywhere would
// show both in the log and in the results. Each thread appends what it got to
// RESULTS. Exit status 0 unless something failed.
//
//   cache_stress writer CACHE_DIR ENTRY_FILE WRITER_ID
//
// The victim of the SIGKILL test (tests/unit/test_cache_load.cpp): stores the
// kernel in ENTRY_FILE (an encoded entry) under key ("kill", WRITER_ID, i) for
// i = 0, 1, ... until killed, with a few MB of source so that a kill often
// lands in the middle of a write.
#include <fcntl.h>
#include <unistd.h>

#include <stdexcept>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <exception>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "cache/entry.hpp"
#include "cache/kernel_cache.hpp"

namespace {

bool append_line(const std::string& path, const std::string& line) {
  int fd = ::open(path.c_str(), O_WRONLY | O_APPEND | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return false;
  std::string s = line + "\n";
  // O_APPEND and one write: lines from all processes stay whole.
  bool ok = ::write(fd, s.data(), s.size()) == static_cast<ssize_t>(s.size());
  return ::close(fd) == 0 && ok;
}

}  // namespace

int writer(const std::string& dir, const std::string& entry_file, const std::string& id) {
  using namespace cujit::cache;
  std::string bytes;
  {
    int fd = ::open(entry_file.c_str(), O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 1;
    char buf[65536];
    for (ssize_t n; (n = ::read(fd, buf, sizeof buf)) > 0;) bytes.append(buf, static_cast<std::size_t>(n));
    ::close(fd);
  }
  Decoded<Entry> d = decode_entry(bytes, std::nullopt, {});
  if (!d.value) {
    std::fprintf(stderr, "cache_stress: %s: %s\n", entry_file.c_str(), d.problem.c_str());
    return 1;
  }
  Entry e = *d.value;
  e.source.assign(4 << 20, '/');
  Config cfg;
  cfg.dir = dir;
  cfg.save_source = true;
  KernelCache cache(cfg);
  for (unsigned long i = 0;; ++i) {
    const Key key = make_key("kill", id + "/" + std::to_string(i), e.target, 1);
    cache.get_or_compile(key, e.target, [&] { return e; });
  }
}

int main(int argc, char** argv) {
  using namespace cujit::cache;
  if (argc == 5 && std::string(argv[1]) == "writer") return writer(argv[2], argv[3], argv[4]);
  if (argc != 5) {
    std::fprintf(stderr, "usage: cache_stress CACHE_DIR COMPILE_LOG RESULTS THREADS\n");
    return 2;
  }
  const std::string log = argv[2], results = argv[3];
  const int threads = std::stoi(argv[4]);

  char c;
  while (::read(STDIN_FILENO, &c, 1) > 0) {
  }

  Config cfg;
  cfg.dir = argv[1];
  cfg.lock_timeout = std::chrono::seconds(60);
  KernelCache cache(cfg);
  const Key key = make_key("extern \"C\" __global__ void k() {}", "-O3", "sm_90", 12040);
  const std::string me = std::to_string(::getpid());

  std::mutex mu;
  std::condition_variable cv;
  bool go = false;
  std::vector<std::string> got(static_cast<std::size_t>(threads));
  std::vector<std::thread> pool;
  for (int t = 0; t < threads; ++t) {
    pool.emplace_back([&, t] {
      {
        std::unique_lock<std::mutex> g(mu);
        cv.wait(g, [&] { return go; });
      }
      try {
        auto e = cache.get_or_compile(key, "sm_90", [&] {
          if (!append_line(log, me)) throw std::runtime_error("cannot append to " + log);
          // Long enough for every other process to reach the lock meanwhile.
          std::this_thread::sleep_for(std::chrono::milliseconds(300));
          return Entry{"sm_90", "cubin from " + me, "ptx from " + me, ""};
        });
        got[static_cast<std::size_t>(t)] = e->target + "|" + e->cubin + "|" + e->ptx;
      } catch (const std::exception& ex) {
        got[static_cast<std::size_t>(t)] = std::string("error: ") + ex.what();
      }
    });
  }
  {
    std::lock_guard<std::mutex> g(mu);
    go = true;
  }
  cv.notify_all();
  for (auto& th : pool) th.join();

  int status = 0;
  for (const std::string& r : got) {
    if (!append_line(results, r)) status = 1;
    if (r.rfind("error: ", 0) == 0) status = 1;
  }
  return status;
}

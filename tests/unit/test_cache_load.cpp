// Load on the kernel cache (issue 13), CPU only: many threads through the
// compile-through-cache path with real NVRTC kernels, many processes on one
// fresh folder, and writers killed with SIGKILL in the middle of writing.
// Hidden from the default run ("[.]"); CTest runs them as `cache_load`.
// Each prints its counts on stdout.
#include <fcntl.h>
#include <ftw.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <fmt/format.h>

#include "catch.hpp"
#include "cache_test_util.hpp"
#include "gpu/codegen.hpp"
#include "gpu/compile.hpp"
#include "cujit/error.hpp"
#include "cache/entry.hpp"
#include "cache/kernel_cache.hpp"
#include "cache/kernel_image.hpp"
#include "cache/key.hpp"
#include "gpu/launch.hpp"

extern char** environ;

using namespace cujit;
using namespace cujit::cache;

namespace {

using namespace cujit::cache::test;

bool exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

std::vector<std::string> lines_of(const std::string& path) {
  std::vector<std::string> out;
  std::ifstream f(path);
  for (std::string line; std::getline(f, line);) out.push_back(line);
  return out;
}

// Every file below `dir` whose name contains `part`.
int count_files(const std::string& dir, const std::string& part) {
  static std::atomic<int> n;
  static std::string want;
  n = 0;
  want = part;
  ::nftw(dir.c_str(), [](const char* p, const struct stat*, int type, FTW*) {
    if (type == FTW_F && std::string(p).find(want) != std::string::npos) ++n;
    return 0;
  }, 16, FTW_PHYS);
  return n;
}

const char* kParams = "float* y, const float* x, long long n";
std::string load_kernel(int k) {
  return fmt::format(
      "extern \"C\" __global__ void cujit_load{0}({1}) {{"
      "for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; "
      "i += (long long)blockDim.x * gridDim.x) y[i] = x[i] * {0}.5f; }}\n",
      k, kParams);
}

std::vector<ArgSlot> three_words() {
  std::vector<ArgSlot> s(3);
  for (ArgSlot& a : s) a.size = a.align = 8;
  return s;
}

KernelExpect expect_for(const std::string& name, int arch) {
  KernelExpect x;
  x.name = name;
  x.arch = arch;
  x.params = std::vector<ParamSpec>(3, ParamSpec{8, 8});
  return x;
}

}  // namespace

TEST_CASE("load: 32 threads x 1000 calls mixing new and cached kernels compile each kernel once", "[.][load]") {
  const int arch = cap_arch(90);
  constexpr int kThreads = 32, kCalls = 1000, kKernels = 10;
  TempDir tmp;
  Warnings w;
  KernelCache shared(config_for(tmp / "cache", w, std::chrono::seconds(60)));
  CompileOptions co;
  co.arch = arch;
  const std::vector<ArgSlot> sig = three_words();
  std::vector<std::string> sources;
  for (int k = 0; k < kKernels; ++k) sources.push_back(load_kernel(k));

  std::atomic<int> compiles{0}, answers{0}, wrong{0}, errors{0}, fresh_caches{0};
  std::atomic<std::uint64_t> fresh_disk_hits{0};
  auto t0 = std::chrono::steady_clock::now();
  std::vector<std::thread> pool;
  for (int t = 0; t < kThreads; ++t)
    pool.emplace_back([&, t] {
      for (int i = 0; i < kCalls; ++i) {
        // Kernel j is new during calls [100j, 100j+100): a third of those
        // calls ask for it, the rest for kernels already cached.
        const int j = i / (kCalls / kKernels);
        const int k = i % 3 == 0 ? j : (t + i) % (j + 1);
        try {
          bool compiled = false;
          std::shared_ptr<const Entry> e;
          if (i % 200 == 199) {
            // Now and then a cache of its own, as another process would
            // have: memory empty, so the disk (or the lock) answers.
            Warnings fw;
            KernelCache fresh(config_for(tmp / "cache", fw, std::chrono::seconds(60)));
            e = compile_through_cache(sources[k], fmt::format("cujit_load{}", k), co, &compiled, {}, &sig, &fresh);
            fresh_caches++;
            fresh_disk_hits += fresh.counters().disk_hits;
            if (!fw.lines.empty()) errors++;
          } else {
            e = compile_through_cache(sources[k], fmt::format("cujit_load{}", k), co, &compiled, {}, &sig, &shared);
          }
          if (compiled) compiles++;
          if (check_kernel_image(*e, expect_for(fmt::format("cujit_load{}", k), arch)) != "") wrong++;
          answers++;
        } catch (const std::exception&) {
          errors++;
        }
      }
    });
  for (auto& th : pool) th.join();
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  Counters n = shared.counters();
  std::printf(
      "load: %d threads x %d calls: %d answers in %.1f s, %d kernels, %d compiles, %llu memory hits "
      "(%llu waited for a compile), %llu disk hits, %d fresh caches (%llu disk hits), %d wrong, %d errors\n",
      kThreads, kCalls, answers.load(), secs, kKernels, compiles.load(),
      static_cast<unsigned long long>(n.memory_hits), static_cast<unsigned long long>(n.memory_waits),
      static_cast<unsigned long long>(n.disk_hits), fresh_caches.load(),
      static_cast<unsigned long long>(fresh_disk_hits.load()), wrong.load(), errors.load());
  CHECK(answers == kThreads * kCalls);
  CHECK(compiles == kKernels);
  CHECK(wrong == 0);
  CHECK(errors == 0);
  CHECK(w.lines.empty());
  CHECK(shared.list().size() == static_cast<std::size_t>(kKernels));
}

TEST_CASE("load: 16 jitcache processes on one fresh folder compile each kernel once", "[.][load]") {
#ifndef CUJIT_JITCACHE
  FAIL("CUJIT_JITCACHE is not defined: tests/cache.cmake was not included");
#else
  constexpr int kProcs = 16;
  TempDir tmp;
  const std::string dir = tmp / "cache";
  std::vector<std::string> env_strings;
  for (char** e = environ; *e; ++e)
    if (std::string(*e).rfind("CUJIT_CACHE", 0) != 0) env_strings.push_back(*e);
  env_strings.push_back("CUJIT_CACHE_DIR=" + dir);
  std::vector<char*> envp;
  for (auto& s : env_strings) envp.push_back(s.data());
  envp.push_back(nullptr);

  auto t0 = std::chrono::steady_clock::now();
  std::vector<pid_t> pids;
  for (int p = 0; p < kProcs; ++p) {
    std::vector<std::string> args = {CUJIT_JITCACHE, "compile", "-i", "x=float32", "-i", "a=float64:weak",
                                     "out = sin(x)*a + 1", "--layout", "all", "--arch", "sm_90"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    const std::string out = tmp / ("out." + std::to_string(p)), err = tmp / ("err." + std::to_string(p));
    posix_spawn_file_actions_addopen(&fa, STDOUT_FILENO, out.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    posix_spawn_file_actions_addopen(&fa, STDERR_FILENO, err.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    pid_t pid;
    REQUIRE(::posix_spawn(&pid, CUJIT_JITCACHE, &fa, nullptr, argv.data(), envp.data()) == 0);
    posix_spawn_file_actions_destroy(&fa);
    pids.push_back(pid);
  }
  int failed = 0;
  for (pid_t pid : pids) {
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) ++failed;
  }
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  int compiled = 0, cached = 0, stderr_lines = 0;
  for (int p = 0; p < kProcs; ++p) {
    for (const std::string& line : lines_of(tmp / ("out." + std::to_string(p)))) {
      compiled += line.find(" compiled (") != std::string::npos;
      cached += line.find(" already cached (") != std::string::npos;
    }
    for (const std::string& line : lines_of(tmp / ("err." + std::to_string(p)))) {
      UNSCOPED_INFO("stderr of process " << p << ": " << line);
      ++stderr_lines;
    }
  }
  std::printf("load: %d jitcache processes x 3 layouts in %.1f s: %d compiled, %d already cached, %d failed, "
              "%d stderr lines\n",
              kProcs, secs, compiled, cached, failed, stderr_lines);
  CHECK(failed == 0);
  CHECK(compiled == 3);
  CHECK(cached == 3 * (kProcs - 1));
  CHECK(stderr_lines == 0);
  Warnings w;
  KernelCache check(config_for(dir, w, std::chrono::seconds(60)));
  auto verified = check.verify();
  CHECK(verified.size() == 3);
  for (const auto& e : verified) CHECK(e.problem == "");
#endif
}

TEST_CASE("load: writers killed with SIGKILL mid-write leave every reader a correct kernel", "[.][load]") {
#ifndef CUJIT_CACHE_STRESS
  FAIL("CUJIT_CACHE_STRESS is not defined: tests/cache.cmake was not included");
#else
  const int arch = cap_arch(90);
  const std::string target = fmt::format("sm_{}", arch);
  constexpr int kRounds = 12, kWriters = 3;
  TempDir tmp;
  const std::string dir = tmp / "cache", entry_file = tmp / "reference.entry";
  CompileOptions co;
  co.arch = arch;
  const std::string name = "cujit_load7";
  CompiledKernel ck = compile_cuda(load_kernel(7), name, co);
  const Entry reference{ck.target, ck.cubin, ck.ptx, ""};
  {
    std::ofstream f(entry_file, std::ios::binary);
    f << encode_entry(Key{}, reference, false);
  }
  const KernelExpect expect = expect_for(name, arch);
  const Check check = [&](const Entry& e) { return check_kernel_image(e, expect); };

  std::mt19937 rng(12345);
  int killed = 0, keys = 0, disk_hits = 0, recompiled = 0, bad = 0, wrong = 0, timeouts = 0, temps_left = 0;
  auto t0 = std::chrono::steady_clock::now();
  for (int round = 0; round < kRounds; ++round) {
    std::vector<pid_t> pids;
    std::vector<std::string> ids;
    for (int wr = 0; wr < kWriters; ++wr) {
      ids.push_back(std::to_string(round) + "." + std::to_string(wr));
      std::vector<std::string> args = {CUJIT_CACHE_STRESS, "writer", dir, entry_file, ids.back()};
      std::vector<char*> argv;
      for (auto& a : args) argv.push_back(a.data());
      argv.push_back(nullptr);
      pid_t pid;
      REQUIRE(::posix_spawn(&pid, CUJIT_CACHE_STRESS, nullptr, nullptr, argv.data(), environ) == 0);
      pids.push_back(pid);
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<int>(30, 400)(rng)));
    for (pid_t pid : pids) {
      ::kill(pid, SIGKILL);
      int status = 0;
      REQUIRE(::waitpid(pid, &status, 0) == pid);
      CHECK(WIFSIGNALED(status));
      killed += WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL;
    }
    // Readers, as fresh processes would be: every key a writer got to.
    Warnings w;
    Config cfg = config_for(dir, w, std::chrono::seconds(60));
    cfg.lock_timeout = std::chrono::seconds(5);  // a lock the dead kept would show as a time-out
    KernelCache reader(cfg);
    for (const std::string& id : ids) {
      for (unsigned long i = 0;; ++i) {
        const Key key = make_key("kill", id + "/" + std::to_string(i), target, 1);
        bool touched = exists(reader.entry_path(key)) || exists(reader.lock_path(key));
        if (!touched && i > 0) break;
        ++keys;
        bool compiled = false;
        auto e = reader.get_or_compile(key, target, [&] { compiled = true; return reference; }, check);
        recompiled += compiled;
        if (e->cubin != reference.cubin || e->ptx != reference.ptx || check(*e) != "") ++wrong;
      }
    }
    Counters n = reader.counters();
    disk_hits += static_cast<int>(n.disk_hits);
    bad += static_cast<int>(n.disk_bad);
    timeouts += static_cast<int>(n.lock_timeouts);
    for (const auto& line : w.lines) UNSCOPED_INFO(line);
  }
  temps_left = count_files(dir, ".tmp.");
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("load: %d writers killed with SIGKILL in %.1f s; readers asked for %d keys: %d disk hits, %d "
              "recompiled (killed before the rename), %d bad entries, %d wrong kernels, %d lock time-outs; "
              "%d temp files of killed writes left for prune\n",
              killed, secs, keys, disk_hits, recompiled, bad, wrong, timeouts, temps_left);
  CHECK(killed == kRounds * kWriters);
  CHECK(keys > 0);
  CHECK(disk_hits + recompiled == keys);
  CHECK(bad == 0);
  CHECK(wrong == 0);
  CHECK(timeouts == 0);
  // prune removes what the killed writers left once it is an hour old.
  Warnings w;
  KernelCache after(config_for(dir, w, std::chrono::seconds(60)));
  CHECK(after.verify().size() == static_cast<std::size_t>(disk_hits + recompiled));
  for (const auto& e : after.verify()) CHECK(e.problem == "");
#endif
}

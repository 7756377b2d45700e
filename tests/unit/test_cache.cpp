// The kernel cache (cache/): keys, the entry format, every way an entry can be
// bad, directories that cannot be written, and compiles exactly once across
// threads and processes.
#include <dirent.h>
#include <fcntl.h>
#include <sys/resource.h>
#include <ftw.h>
#include <pwd.h>
#include <spawn.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <stdexcept>
#include <atomic>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <functional>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "catch.hpp"
#include "cache_test_util.hpp"
#include "cujit/error.hpp"
#include "cache/entry.hpp"
#include "core/fail.hpp"
#include "cache/kernel_cache.hpp"
#include "cache/key.hpp"
#include "skip.hpp"

extern char** environ;

using namespace cujit;
using namespace cujit::cache;

namespace {

// ---- Helpers -----------------------------------------------------------------

using namespace cujit::cache::test;

Entry kernel(const std::string& tag, const std::string& target = "sm_90") {
  return Entry{target, "CUBIN<" + tag + ">", "PTX<" + tag + ">", "SOURCE<" + tag + ">"};
}

bool same(const Entry& a, const Entry& b) {
  return a.target == b.target && a.cubin == b.cubin && a.ptx == b.ptx && a.source == b.source;
}

std::string read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << bytes;
  REQUIRE(f.good());
}

// Through replace(): GCC 12 warns (falsely) about s[i] = v past the SSO buffer.
std::string with_byte(std::string s, std::size_t at, int value) {
  return s.replace(at, 1, 1, static_cast<char>(value));
}

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

// Whether this process bypasses file permissions (root, CAP_DAC_OVERRIDE):
// then chmod cannot make anything unreadable or read-only for it.
bool permissions_bypassed(const TempDir& tmp) {
  std::string probe = tmp / "perm-probe";
  write_bytes(probe, "x");
  ::chmod(probe.c_str(), 0);
  int fd = ::open(probe.c_str(), O_RDONLY);
  if (fd >= 0) ::close(fd);
  ::unlink(probe.c_str());
  return fd >= 0;
}

const Key kKey = make_key("__global__ void k() {}", "-O3", "sm_90", 12040);

// ---- Keys ----------------------------------------------------------------------

TEST_CASE("cache keys cover every input, unambiguously, and spell as 32 hex digits", "[cache]") {
  struct Row {
    const char *source, *options, *target;
    int nvrtc;
  };
  const Row rows[] = {
      {"a+b", "-O3", "sm_90", 12040},  {"a-b", "-O3", "sm_90", 12040}, {"a+b", "-O2", "sm_90", 12040},
      {"a+b", "-O3", "sm_80", 12040},  {"a+b", "-O3", "sm_90", 12050}, {"a+b", "", "sm_90", 12040},
      {"a+b-O3", "", "sm_90", 12040},  // field boundaries count: not the first row's bytes run together
      {"", "a+b-O3", "sm_90", 12040},
  };
  std::set<std::string> seen;
  for (const Row& r : rows) {
    Key k = make_key(r.source, r.options, r.target, r.nvrtc);
    INFO(r.source << " / " << r.options << " / " << r.target << " / " << r.nvrtc);
    CHECK(k == make_key(r.source, r.options, r.target, r.nvrtc));
    CHECK(seen.insert(k.hex()).second);
  }

  Key k{0x0123456789abcdefULL, 0xfedcba9876543210ULL};
  CHECK(k.hex() == "0123456789abcdeffedcba9876543210");
  CHECK(Key::from_hex(k.hex()) == k);
  for (const char* bad : {"", "0123456789abcdeffedcba987654321", "0123456789abcdeffedcba98765432100",
                          "0123456789ABCDEFfedcba9876543210", "0123456789abcdegfedcba9876543210"})
    CHECK_FALSE(Key::from_hex(bad));

  // Layout keys: parts are length-prefixed and typed.
  CHECK(KeyBuilder().add("ab").add("c").finish() != KeyBuilder().add("a").add("bc").finish());
  CHECK(KeyBuilder().add(std::uint64_t{5}).finish() != KeyBuilder().add(std::string("\5\0\0\0\0\0\0\0", 8)).finish());
  CHECK(KeyBuilder().add("x").add(std::uint64_t{3}).finish() == KeyBuilder().add("x").add(std::uint64_t{3}).finish());
  CHECK(hash_bytes("program") == KeyBuilder().add("program").finish());
  CHECK(hash_bytes("program") != hash_bytes("programs"));
}

// ---- Entry format ----------------------------------------------------------------

TEST_CASE("entry files round-trip and name what is wrong with them", "[cache]") {
  const Entry e = kernel("k");
  const std::string good = encode_entry(kKey, e, /*with_source=*/true);
  REQUIRE(good.size() == kHeaderSize + e.target.size() + e.cubin.size() + e.ptx.size() + e.source.size());

  auto d = decode_entry(good, kKey, "sm_90");
  REQUIRE(d.value);
  CHECK(same(*d.value, e));
  CHECK(d.problem.empty());

  auto nosrc = decode_entry(encode_entry(kKey, e, /*with_source=*/false), kKey, "sm_90");
  REQUIRE(nosrc.value);
  CHECK(nosrc.value->source.empty());
  CHECK(nosrc.value->cubin == e.cubin);

  const Key other{1, 2};
  const std::string n = std::to_string(good.size());
  struct Row {
    const char* what;
    std::function<std::string(std::string)> mutate;
    std::string problem;
  };
  const std::vector<Row> rows = {
      {"empty", [](std::string) { return std::string(); }, "truncated header (0 bytes)"},
      {"short header", [](std::string s) { return s.substr(0, 40); }, "truncated header (40 bytes)"},
      {"short payload", [](std::string s) { return s.substr(0, 70); }, "truncated (70 of " + n + " bytes)"},
      {"trailing bytes", [](std::string s) { return s + "xx"; },
       std::to_string(good.size() + 2) + " bytes, expected " + n},
      {"bad magic", [](std::string s) { s[0] = 'X'; return s; }, "bad magic"},
      {"other version", [](std::string s) { s[8] = 2; return s; }, "format version 2, expected 1"},
      {"payload byte", [](std::string s) { s.back() ^= 1; return s; }, "checksum mismatch"},
      {"header byte", [](std::string s) { return with_byte(s, 40, s[40] ^ 1); }, "checksum mismatch"},
      {"huge length", [](std::string s) { return with_byte(s, 23, 0x7f); }, "corrupt header (payload length)"},
      {"other key", [&](std::string) { return encode_entry(other, e, true); }, "holds key " + other.hex()},
      {"other target", [&](std::string) { return encode_entry(kKey, kernel("k", "sm_80"), true); },
       "target sm_80, expected sm_90"},
  };
  for (const Row& r : rows) {
    INFO(r.what);
    auto bad = decode_entry(r.mutate(good), kKey, "sm_90");
    CHECK_FALSE(bad.value);
    CHECK(bad.problem == r.problem);
  }
}

// ---- Configuration -------------------------------------------------------------

TEST_CASE("configuration comes from the environment", "[cache]") {
  passwd* pw = ::getpwuid(::getuid());
  const std::string pw_home = pw && pw->pw_dir ? pw->pw_dir : "";
  using Env = std::map<std::string, std::string>;
  struct Row {
    Env env;
    std::string dir;
    bool enabled, save_source;
    long timeout_ms;
    std::vector<std::string> warnings;
  };
  const std::vector<Row> rows = {
      {{{"HOME", "/h"}}, "/h/.cache/cujit", true, false, 30000, {}},
      {{{"HOME", "/h/"}}, "/h/.cache/cujit", true, false, 30000, {}},
      {{{"HOME", "/"}}, "/.cache/cujit", true, false, 30000, {}},
      {{{"HOME", "/h"}, {"XDG_CACHE_HOME", "/x/"}}, "/x/cujit", true, false, 30000, {}},
      {{{"HOME", "/h"}, {"XDG_CACHE_HOME", "relative"}}, "/h/.cache/cujit", true, false, 30000, {}},
      {{{"HOME", "/h"}, {"XDG_CACHE_HOME", "/x"}, {"CUJIT_CACHE_DIR", "/c//"}}, "/c", true, false, 30000, {}},
      {{}, pw_home.empty() ? "" : pw_home + "/.cache/cujit", true, false, 30000, {}},
      {{{"HOME", "/h"}, {"CUJIT_CACHE", "0"}}, "/h/.cache/cujit", false, false, 30000, {}},
      {{{"HOME", "/h"}, {"CUJIT_CACHE", "1"}, {"CUJIT_CACHE_SAVE_SOURCE", "1"}}, "/h/.cache/cujit", true, true, 30000,
       {}},
      {{{"HOME", "/h"}, {"CUJIT_CACHE_LOCK_TIMEOUT", "2.5"}}, "/h/.cache/cujit", true, false, 2500, {}},
      {{{"HOME", "/h"}, {"CUJIT_CACHE_LOCK_TIMEOUT", "soon"}, {"CUJIT_CACHE", "maybe"}},
       "/h/.cache/cujit", true, false, 30000,
       {"cujit: warning: ignoring CUJIT_CACHE=maybe (expected 0 or 1)",
        "cujit: warning: ignoring CUJIT_CACHE_LOCK_TIMEOUT=soon (expected seconds)"}},
      {{{"HOME", "/h"}, {"CUJIT_CACHE_LOCK_TIMEOUT", "-1"}}, "/h/.cache/cujit", true, false, 30000,
       {"cujit: warning: ignoring CUJIT_CACHE_LOCK_TIMEOUT=-1 (expected seconds)"}},
  };
  for (const Row& r : rows) {
    Warnings w;
    Config c = Config::from_env(
        [&](const char* name) -> const char* {
          auto it = r.env.find(name);
          return it == r.env.end() ? nullptr : it->second.c_str();
        },
        w.sink());
    INFO("expected dir " << r.dir);
    CHECK(c.dir == r.dir);
    CHECK(c.enabled == r.enabled);
    CHECK(c.save_source == r.save_source);
    CHECK(c.lock_timeout.count() == r.timeout_ms);
    CHECK(w.lines == r.warnings);
  }
}

// ---- Disk ------------------------------------------------------------------------

TEST_CASE("a compiled kernel is stored on disk and found there by another cache", "[cache]") {
  TempDir tmp;
  Warnings w;
  const std::string dir = tmp / "new/cache";  // created on demand, 0700
  int compiles = 0;
  {
    KernelCache a(config_for(dir, w));
    auto e = a.get_or_compile(kKey, "sm_90", [&] { ++compiles; return kernel("v1"); });
    CHECK(same(*e, kernel("v1")));
    auto again = a.get_or_compile(kKey, "sm_90", [&] { ++compiles; return kernel("v2"); });
    CHECK(again == e);
    Counters n = a.counters();
    CHECK(n.compiles == 1);
    CHECK(n.memory_hits == 1);
    CHECK(n.disk_hits == 0);
    CHECK(n.disk_writes == 1);
    CHECK(a.find_in_memory(kKey) == e);
  }
  CHECK(compiles == 1);

  const std::string hex = kKey.hex();
  CHECK(dir + "/" + hex.substr(0, 2) + "/" + hex == KernelCache(config_for(dir, w)).entry_path(kKey));
  for (const std::string& d : {tmp / "new", dir, dir + "/" + hex.substr(0, 2)}) {
    struct stat st;
    REQUIRE(::stat(d.c_str(), &st) == 0);
    CHECK((st.st_mode & 0777) == 0700);
  }
  // Nothing but the entry: the lock file goes with the write it guarded, and no temp file is left.
  CHECK(exists(dir + "/" + hex.substr(0, 2) + "/" + hex));
  CHECK_FALSE(exists(dir + "/" + hex.substr(0, 2) + "/" + hex + ".lock"));

  KernelCache b(config_for(dir, w));
  auto e = b.get_or_compile(kKey, "sm_90", [&]() -> Entry { FAIL("compiled although on disk"); return {}; });
  CHECK(same(*e, Entry{"sm_90", "CUBIN<v1>", "PTX<v1>", ""}));  // source only with save_source
  CHECK(b.counters().disk_hits == 1);
  CHECK(b.counters().compiles == 0);
  CHECK(w.lines.empty());
  CHECK(b.list().size() == 1);
}

TEST_CASE("the generated source is kept on disk only when asked for", "[cache]") {
  for (bool save : {false, true}) {
    TempDir tmp;
    Warnings w;
    Config c = config_for(tmp.path(), w);
    c.save_source = save;
    KernelCache(c).get_or_compile(kKey, "sm_90", [] { return kernel("s"); });
    auto e = KernelCache(c).get_or_compile(kKey, "sm_90", []() -> Entry { throw std::logic_error("no"); });
    CHECK(e->source == (save ? "SOURCE<s>" : ""));
  }
}

TEST_CASE("CUJIT_CACHE=0 keeps the cache in memory and off the disk", "[cache]") {
  TempDir tmp;
  Warnings w;
  const std::string dir = tmp / "c";
  Config c = Config::from_env(
      [&](const char* n) -> const char* {
        if (std::string(n) == "CUJIT_CACHE") return "0";
        if (std::string(n) == "CUJIT_CACHE_DIR") return dir.c_str();
        return nullptr;
      },
      w.sink());
  KernelCache cache(c);
  int compiles = 0;
  for (int k = 0; k < 3; ++k)
    CHECK(same(*cache.get_or_compile(kKey, "sm_90", [&] { ++compiles; return kernel("m"); }), kernel("m")));
  CHECK(compiles == 1);
  CHECK(cache.counters().memory_hits == 2);
  CHECK_FALSE(cache.disk_writable());
  CHECK_FALSE(exists(dir));
  CHECK(w.lines.empty());
}

// ---- Bad entries: each one a miss, warned about once, recompiled and replaced ----

// Stores a good entry, damages it with `inject`, then checks that a fresh
// cache warns exactly `warning` (none when empty), compiles once, returns the
// new kernel and leaves a good entry that a third cache reads silently.
void check_recovers(const std::function<void(const std::string& path, const std::string& bytes)>& inject,
                    const std::string& problem) {
  TempDir tmp;
  Warnings setup;
  const std::string dir = tmp / "cache";
  KernelCache(config_for(dir, setup)).get_or_compile(kKey, "sm_90", [] { return kernel("old"); });
  REQUIRE(setup.lines.empty());
  const std::string path = KernelCache(config_for(dir, setup)).entry_path(kKey);
  inject(path, read_all(path));

  Warnings w;
  KernelCache b(config_for(dir, w));
  int compiles = 0;
  auto e = b.get_or_compile(kKey, "sm_90", [&] { ++compiles; return kernel("new"); });
  CHECK(same(*e, kernel("new")));
  CHECK(compiles == 1);
  std::vector<std::string> expected;
  if (!problem.empty())
    expected.push_back("cujit: warning: ignoring kernel cache entry " + path + ": " + problem + "; recompiling");
  CHECK(w.lines == expected);
  Counters n = b.counters();
  CHECK(n.disk_bad == (problem.empty() ? 0u : 1u));
  CHECK(n.disk_hits == 0);
  CHECK(n.compiles == 1);
  CHECK(n.disk_writes == 1);
  CHECK(n.disk_write_failures == 0);

  Warnings w2;
  KernelCache c(config_for(dir, w2));
  auto replaced = c.get_or_compile(kKey, "sm_90", []() -> Entry { throw std::logic_error("must not compile"); });
  CHECK(replaced->cubin == "CUBIN<new>");
  CHECK(c.counters().disk_hits == 1);
  CHECK(w2.lines.empty());
  CHECK(c.verify().front().problem.empty());
}

TEST_CASE("cache fault: missing entry is a silent miss", "[cache]") {
  check_recovers([](const std::string& path, const std::string&) { REQUIRE(::unlink(path.c_str()) == 0); }, "");
}

TEST_CASE("cache fault: truncated entry", "[cache]") {
  SECTION("cut in the payload") {
    check_recovers([](const std::string& p, const std::string& b) { write_bytes(p, b.substr(0, 70)); },
                   "truncated (70 of " + std::to_string(kHeaderSize + 5 + 10 + 8) + " bytes)");
  }
  SECTION("cut in the header") {
    check_recovers([](const std::string& p, const std::string& b) { write_bytes(p, b.substr(0, 20)); },
                   "truncated header (20 bytes)");
  }
  SECTION("empty") {
    check_recovers([](const std::string& p, const std::string&) { write_bytes(p, ""); },
                   "truncated header (0 bytes)");
  }
}

TEST_CASE("cache fault: bad magic", "[cache]") {
  check_recovers([](const std::string& p, std::string b) { b.replace(0, 8, "ELF\x7f...."); write_bytes(p, b); },
                 "bad magic");
}

TEST_CASE("cache fault: other format version", "[cache]") {
  check_recovers([](const std::string& p, std::string b) { b[8] = 7; write_bytes(p, b); },
                 "format version 7, expected 1");
}

TEST_CASE("cache fault: checksum mismatch", "[cache]") {
  check_recovers([](const std::string& p, std::string b) { b[kHeaderSize + 7] ^= 0x20; write_bytes(p, b); },
                 "checksum mismatch");
}

TEST_CASE("cache fault: target mismatch", "[cache]") {
  check_recovers(
      [](const std::string& p, const std::string&) { write_bytes(p, encode_entry(kKey, kernel("old", "sm_80"), false)); },
      "target sm_80, expected sm_90");
}

TEST_CASE("cache fault: entry stored under another key", "[cache]") {
  const Key other = make_key("other", "", "sm_90", 12040);
  check_recovers([&](const std::string& p, const std::string&) { write_bytes(p, encode_entry(other, kernel("old"), false)); },
                 "holds key " + other.hex());
}

// File permissions do not hold for root: CTest runs the [permissions] cases as
// an unprivileged user there (tests/cli/unprivileged.sh), and skips them where it cannot.
TEST_CASE("cache fault: unreadable entry (no read permission)", "[cache][permissions]") {
  TempDir probe;
  if (permissions_bypassed(probe)) CUJIT_SKIP("this process bypasses file permissions (root): chmod 000 does not stop it");
  check_recovers([](const std::string& p, const std::string&) { REQUIRE(::chmod(p.c_str(), 0) == 0); },
                 "unreadable (Permission denied)");
}

TEST_CASE("cache fault: unreadable entry", "[cache]") {
  SECTION("a directory where the entry belongs") {
    check_recovers(
        [](const std::string& p, const std::string&) {
          REQUIRE(::unlink(p.c_str()) == 0);
          REQUIRE(::mkdir(p.c_str(), 0700) == 0);
        },
        "unreadable (not a regular file)");
  }
  SECTION("a symbolic link loop") {
    check_recovers(
        [](const std::string& p, const std::string&) {
          REQUIRE(::unlink(p.c_str()) == 0);
          REQUIRE(::symlink(p.c_str(), p.c_str()) == 0);
        },
        "unreadable (not a regular file)");
  }
}

// ---- Directories that cannot be written ----------------------------------------

// Asks for two kernels twice each; all four answers must be right, with one
// warning in all and no disk writes.
void check_memory_only(const std::string& dir, const std::string& reason) {
  Warnings w;
  KernelCache cache(config_for(dir, w));
  const Key k2 = make_key("second", "", "sm_90", 12040);
  int compiles = 0;
  for (int round = 0; round < 2; ++round) {
    CHECK(same(*cache.get_or_compile(kKey, "sm_90", [&] { ++compiles; return kernel("one"); }), kernel("one")));
    CHECK(same(*cache.get_or_compile(k2, "sm_90", [&] { ++compiles; return kernel("two"); }), kernel("two")));
  }
  CHECK(compiles == 2);
  CHECK(w.lines == std::vector<std::string>{"cujit: warning: cannot write the kernel cache in " + dir + ": " + reason +
                                            "; caching in memory only"});
  CHECK_FALSE(cache.disk_writable());
  Counters n = cache.counters();
  CHECK(n.compiles == 2);
  CHECK(n.memory_hits == 2);
  CHECK(n.disk_writes == 0);
  CHECK(n.disk_write_failures == 1);
}

TEST_CASE("cache directory under a regular file: memory only, one warning", "[cache]") {
  TempDir tmp;
  write_bytes(tmp / "file", "not a directory");
  check_memory_only(tmp / "file/cache", "Not a directory");
}

TEST_CASE("cache directory that is a regular file: memory only, one warning", "[cache]") {
  TempDir tmp;
  write_bytes(tmp / "file", "not a directory");
  check_memory_only(tmp / "file", "Not a directory");
}

// Sets a file size limit (so writes fail as on a full disk) until destroyed.
struct FileSizeLimit {
  rlimit saved{};
  void (*saved_handler)(int);
  explicit FileSizeLimit(rlim_t bytes) {
    ::getrlimit(RLIMIT_FSIZE, &saved);
    saved_handler = std::signal(SIGXFSZ, SIG_IGN);  // else the write kills the process
    rlimit small = saved;
    small.rlim_cur = bytes;
    ::setrlimit(RLIMIT_FSIZE, &small);
  }
  ~FileSizeLimit() {
    ::setrlimit(RLIMIT_FSIZE, &saved);
    std::signal(SIGXFSZ, saved_handler);
  }
};

TEST_CASE("a write that fails midway, as on a full disk: memory only, one warning, no debris", "[cache]") {
  TempDir tmp;
  Warnings w;
  const std::string dir = tmp / "c";
  KernelCache cache(config_for(dir, w));
  const Key k2 = make_key("second", "", "sm_90", 12040);
  std::shared_ptr<const Entry> a, b;
  {
    // Nothing else may write to a regular file meanwhile, so no checks in here.
    FileSizeLimit limit(32);
    a = cache.get_or_compile(kKey, "sm_90", [] { return kernel("one"); });
    b = cache.get_or_compile(k2, "sm_90", [] { return kernel("two"); });
  }
  CHECK(same(*a, kernel("one")));
  CHECK(same(*b, kernel("two")));
  CHECK(w.lines == std::vector<std::string>{"cujit: warning: cannot write the kernel cache in " + dir +
                                            ": File too large; caching in memory only"});
  CHECK(cache.counters().disk_write_failures == 1);
  CHECK(cache.counters().disk_writes == 0);
  // The half-written temp file is gone, and so is the lock file.
  const std::string shard = cache.entry_path(kKey).substr(0, cache.entry_path(kKey).rfind('/'));
  std::vector<std::string> names;
  if (DIR* d = ::opendir(shard.c_str())) {
    while (dirent* e = ::readdir(d))
      if (e->d_name[0] != '.') names.push_back(e->d_name);
    ::closedir(d);
  }
  CHECK(names.empty());
}

TEST_CASE("read-only cache directory: memory only, one warning, existing entries still used", "[cache][permissions]") {
  TempDir tmp;
  if (permissions_bypassed(tmp)) CUJIT_SKIP("this process bypasses file permissions (root): a read-only directory does not stop it");
  const std::string dir = tmp / "ro";
  Warnings setup;
  const Key k0 = make_key("present", "", "sm_90", 12040);
  KernelCache(config_for(dir, setup)).get_or_compile(k0, "sm_90", [] { return kernel("present"); });
  const std::string shard = dir + "/" + k0.hex().substr(0, 2);
  REQUIRE(::chmod(shard.c_str(), 0500) == 0);
  REQUIRE(::chmod(dir.c_str(), 0500) == 0);

  Warnings w;
  KernelCache ro(config_for(dir, w));
  auto e = ro.get_or_compile(k0, "sm_90", []() -> Entry { throw std::logic_error("must not compile"); });
  CHECK(e->cubin == "CUBIN<present>");
  CHECK(w.lines.empty());
  check_memory_only(dir, "Permission denied");
}

// ---- Threads ---------------------------------------------------------------------

// Blocks a compile until `n` other threads wait for it, so "at once" is
// certain rather than likely.
void await_waiters(const KernelCache& cache, std::uint64_t n) {
  auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(20);
  while (cache.counters().memory_waits < n) {
    if (std::chrono::steady_clock::now() > deadline) throw std::runtime_error("waiters never arrived");
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
}

TEST_CASE("16 threads asking for one new kernel compile it once", "[cache]") {
  TempDir tmp;
  Warnings w;
  KernelCache cache(config_for(tmp.path(), w));
  std::atomic<int> compiles{0};
  std::vector<std::shared_ptr<const Entry>> got(16);
  std::vector<std::thread> pool;
  for (int t = 0; t < 16; ++t)
    pool.emplace_back([&, t] {
      got[static_cast<std::size_t>(t)] = cache.get_or_compile(kKey, "sm_90", [&] {
        ++compiles;
        await_waiters(cache, 15);
        return kernel("once");
      });
    });
  for (auto& th : pool) th.join();
  CHECK(compiles == 1);
  for (const auto& e : got) CHECK(e == got[0]);
  CHECK(same(*got[0], kernel("once")));
  Counters n = cache.counters();
  CHECK(n.compiles == 1);
  CHECK(n.memory_hits == 15);
  CHECK(n.memory_waits == 15);
  CHECK(n.disk_writes == 1);
  CHECK(n.compile_ns > 0);
  CHECK(w.lines.empty());
}

TEST_CASE("a failed compile reaches every waiting thread and a later call retries", "[cache]") {
  TempDir tmp;
  Warnings w;
  KernelCache cache(config_for(tmp.path(), w));
  std::atomic<int> compiles{0};
  std::vector<std::string> errors(16);
  std::vector<std::thread> pool;
  for (int t = 0; t < 16; ++t)
    pool.emplace_back([&, t] {
      try {
        cache.get_or_compile(kKey, "sm_90", [&]() -> Entry {
          ++compiles;
          await_waiters(cache, 15);
          fail(ErrorCode::Internal, "nvrtc: error: expected a \";\"");
        });
      } catch (const Error& e) {
        errors[static_cast<std::size_t>(t)] = std::to_string(e.exit_code()) + " " + e.what();
      }
    });
  for (auto& th : pool) th.join();
  CHECK(compiles == 1);
  for (const auto& e : errors) CHECK(e == "5 nvrtc: error: expected a \";\"");
  CHECK(cache.find_in_memory(kKey) == nullptr);
  CHECK_FALSE(exists(cache.entry_path(kKey)));
  CHECK(cache.counters().compile_failures == 1);

  auto e = cache.get_or_compile(kKey, "sm_90", [&] { ++compiles; return kernel("retry"); });
  CHECK(same(*e, kernel("retry")));
  CHECK(compiles == 2);
  Counters n = cache.counters();
  CHECK(n.compiles == 2);
  CHECK(n.compile_failures == 1);
  CHECK(n.memory_hits == 0);
  CHECK(exists(cache.entry_path(kKey)));
}

TEST_CASE("every waiting thread gets its own CompileError with the log, options and source", "[cache]") {
  TempDir tmp;
  Warnings w;
  KernelCache cache(config_for(tmp.path(), w));
  std::vector<std::string> got(8);
  std::vector<std::thread> pool;
  for (int t = 0; t < 8; ++t)
    pool.emplace_back([&, t] {
      try {
        cache.get_or_compile(kKey, "sm_90", [&]() -> Entry {
          await_waiters(cache, 7);
          throw CompileError(ErrorCode::Program, "raw kernel does not compile",
                             CompileError::Parts{"compile", "1 error", "-arch=sm_90", "1 | x"});
        });
      } catch (const CompileError& e) {
        got[static_cast<std::size_t>(t)] =
            std::to_string(e.exit_code()) + "|" + e.what() + "|" + e.stage() + "|" + e.log() + "|" + e.options() + "|" + e.source();
      } catch (const Error& e) {
        got[static_cast<std::size_t>(t)] = std::string("sliced: ") + e.what();
      }
    });
  for (auto& th : pool) th.join();
  for (const auto& g : got) CHECK(g == "2|raw kernel does not compile|compile|1 error|-arch=sm_90|1 | x");
}

TEST_CASE("a compile that returns another target is a bug, reported as such", "[cache]") {
  TempDir tmp;
  Warnings w;
  KernelCache cache(config_for(tmp.path(), w));
  try {
    cache.get_or_compile(kKey, "sm_90", [] { return kernel("x", "sm_80"); });
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Internal);
    CHECK(std::string(e.what()) == "kernel cache: compile returned an entry for sm_80, expected sm_90");
  }
  // An empty target is filled in.
  auto e = cache.get_or_compile(kKey, "sm_90", [] { return kernel("x", ""); });
  CHECK(e->target == "sm_90");
}

TEST_CASE("the memory cache answers by key, also under a program+layout key", "[cache]") {
  Config c;
  c.enabled = false;
  KernelCache cache(c);
  const Key layout = KeyBuilder().add("out = a + b").add("float32,float32;rank 2;contiguous").finish();
  CHECK(cache.find_in_memory(layout) == nullptr);
  auto e = cache.get_or_compile(kKey, "sm_90", [] { return kernel("k"); });
  CHECK(cache.find_in_memory(kKey) == e);
  cache.put_in_memory(layout, e);
  CHECK(cache.find_in_memory(layout) == e);
  auto again = cache.get_or_compile(layout, "sm_90", []() -> Entry { throw std::logic_error("no compile"); });
  CHECK(again == e);
  // An existing key is not replaced.
  cache.put_in_memory(kKey, std::make_shared<const Entry>(kernel("other")));
  CHECK(cache.find_in_memory(kKey) == e);
  CHECK(&global_cache() == &global_cache());
}

// ---- Locks -------------------------------------------------------------------------

struct HeldLock {
  int fd;
  explicit HeldLock(const std::string& path) {
    std::string shard = path.substr(0, path.rfind('/'));
    ::mkdir(shard.substr(0, shard.rfind('/')).c_str(), 0700);
    ::mkdir(shard.c_str(), 0700);
    fd = ::open(path.c_str(), O_RDWR | O_CREAT, 0600);
    REQUIRE(fd >= 0);
    REQUIRE(::flock(fd, LOCK_EX) == 0);
  }
  ~HeldLock() { ::close(fd); }
};

TEST_CASE("a waiter whose lock times out compiles by itself", "[cache]") {
  TempDir tmp;
  Warnings w;
  Config c = config_for(tmp / "c", w);
  c.lock_timeout = std::chrono::milliseconds(300);
  KernelCache cache(c);
  HeldLock held(cache.lock_path(kKey));  // as if another process hung while compiling
  auto t0 = std::chrono::steady_clock::now();
  int compiles = 0;
  auto e = cache.get_or_compile(kKey, "sm_90", [&] { ++compiles; return kernel("alone"); });
  auto waited = std::chrono::steady_clock::now() - t0;
  CHECK(waited >= std::chrono::milliseconds(300));
  CHECK(same(*e, kernel("alone")));
  CHECK(compiles == 1);
  CHECK(w.lines == std::vector<std::string>{"cujit: warning: waited 0.3 s for the kernel cache lock " +
                                            cache.lock_path(kKey) + "; compiling without it"});
  Counters n = cache.counters();
  CHECK(n.lock_timeouts == 1);
  CHECK(n.lock_wait_ns >= 300000000u);
  CHECK(n.disk_writes == 1);  // stored all the same, atomically
  Warnings w2;
  CHECK(KernelCache(config_for(tmp / "c", w2)).get_or_compile(kKey, "sm_90", [] { return kernel("x"); })->cubin ==
        "CUBIN<alone>");
}

TEST_CASE("a waiter reads what the lock holder stored instead of compiling", "[cache]") {
  TempDir tmp;
  Warnings w;
  KernelCache cache(config_for(tmp / "c", w));
  std::shared_ptr<const Entry> got;
  int compiles = 0;
  {
    HeldLock held(cache.lock_path(kKey));
    std::thread waiter([&] {
      got = cache.get_or_compile(kKey, "sm_90", [&] { ++compiles; return kernel("waiter"); });
    });
    // The holder: compile, store atomically, then let go.
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    const std::string path = cache.entry_path(kKey);
    write_bytes(path + ".tmp.test", encode_entry(kKey, kernel("holder"), false));
    REQUIRE(::rename((path + ".tmp.test").c_str(), path.c_str()) == 0);
    ::close(held.fd);
    held.fd = -1;
    waiter.join();
  }
  CHECK(compiles == 0);
  CHECK(got->cubin == "CUBIN<holder>");
  CHECK(cache.counters().disk_hits == 1);
  CHECK(cache.counters().lock_timeouts == 0);
  CHECK(cache.counters().lock_wait_ns >= 100000000u);
  CHECK(w.lines.empty());
}

// ---- Processes -----------------------------------------------------------------------

TEST_CASE("8 processes x 16 threads asking for one new kernel compile it once", "[cache]") {
#ifndef CUJIT_CACHE_STRESS
  FAIL("CUJIT_CACHE_STRESS (the helper's path) is not defined: tests/cache.cmake was not included");
#else
  TempDir tmp;
  const std::string dir = tmp / "cache", log = tmp / "compiles.log";
  int gate[2];
  REQUIRE(::pipe2(gate, O_CLOEXEC) == 0);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, gate[0], STDIN_FILENO);  // dup2 clears close-on-exec
  std::vector<pid_t> pids;
  std::vector<std::string> results;
  for (int p = 0; p < 8; ++p) {
    results.push_back(tmp / ("results." + std::to_string(p)));
    std::vector<std::string> args = {CUJIT_CACHE_STRESS, dir, log, results.back(), "16"};
    std::vector<char*> argv;
    for (auto& a : args) argv.push_back(a.data());
    argv.push_back(nullptr);
    pid_t pid;
    REQUIRE(::posix_spawn(&pid, CUJIT_CACHE_STRESS, &fa, nullptr, argv.data(), environ) == 0);
    pids.push_back(pid);
  }
  posix_spawn_file_actions_destroy(&fa);
  ::close(gate[0]);
  ::close(gate[1]);  // every helper sees end of file now and starts
  for (pid_t pid : pids) {
    int status = 0;
    REQUIRE(::waitpid(pid, &status, 0) == pid);
    CHECK(WIFEXITED(status));
    CHECK(WEXITSTATUS(status) == 0);
  }

  std::vector<std::string> compiled = lines_of(log);
  REQUIRE(compiled.size() == 1);
  std::vector<std::string> all;
  for (const auto& r : results)
    for (auto& line : lines_of(r)) all.push_back(line);
  REQUIRE(all.size() == 128);
  const std::string expected = "sm_90|cubin from " + compiled[0] + "|ptx from " + compiled[0];
  for (const auto& line : all) CHECK(line == expected);
#endif
}

// ---- Maintenance ---------------------------------------------------------------------

TEST_CASE("list, verify, prune and clear the cache directory", "[cache]") {
  TempDir tmp;
  Warnings w;
  KernelCache cache(config_for(tmp / "c", w));
  const std::int64_t now = static_cast<std::int64_t>(::time(nullptr));
  const std::int64_t day = 86400;
  struct Made {
    Key key;
    std::int64_t mtime;
    std::string path;
    std::uint64_t size;
  };
  std::vector<Made> made;
  for (int k = 0; k < 4; ++k) {
    Key key = make_key("kernel " + std::to_string(k), "", "sm_90", 12040);
    cache.get_or_compile(key, k == 3 ? "sm_80" : "sm_90", [&] { return kernel(std::string(k + 1, 'x'), k == 3 ? "sm_80" : "sm_90"); });
    std::int64_t mtime = now - (40 - 10 * k) * day;  // 40, 30, 20, 10 days ago
    timespec ts[2] = {{static_cast<time_t>(mtime), 0}, {static_cast<time_t>(mtime), 0}};
    REQUIRE(::utimensat(AT_FDCWD, cache.entry_path(key).c_str(), ts, 0) == 0);
    made.push_back({key, mtime, cache.entry_path(key), read_all(cache.entry_path(key)).size()});
  }
  // Not entries: left alone by list, removed by clear.
  write_bytes(cache.entry_path(made[0].key) + ".tmp.AbCdEf", "partial");
  write_bytes(tmp / "c/README", "mine");

  std::vector<EntryInfo> infos = cache.list();
  REQUIRE(infos.size() == 4);
  std::map<std::string, EntryInfo> by_key;
  for (auto& i : infos) by_key[i.key.hex()] = i;
  for (int k = 0; k < 4; ++k) {
    const EntryInfo& i = by_key.at(made[k].key.hex());
    CHECK(i.path == made[k].path);
    CHECK(i.size == made[k].size);
    CHECK(i.mtime == made[k].mtime);
    CHECK(i.target == (k == 3 ? "sm_80" : "sm_90"));
    CHECK(i.problem.empty());
  }

  // Damage two: list sees the truncation, only verify sees the flipped byte.
  std::string b1 = read_all(made[1].path);
  b1.back() ^= 1;
  write_bytes(made[1].path, b1);
  write_bytes(made[2].path, read_all(made[2].path).substr(0, 70));
  for (const auto& i : cache.list()) {
    if (i.key == made[2].key) CHECK(i.problem == "truncated (70 of " + std::to_string(made[2].size) + " bytes)");
    else CHECK(i.problem.empty());
  }
  std::map<std::string, std::string> problems;
  for (const auto& i : cache.verify()) problems[i.key.hex()] = i.problem;
  CHECK(problems == std::map<std::string, std::string>{
                        {made[0].key.hex(), ""},
                        {made[1].key.hex(), "checksum mismatch"},
                        {made[2].key.hex(), "truncated (70 of " + std::to_string(made[2].size) + " bytes)"},
                        {made[3].key.hex(), ""}});
  CHECK(cache.verify(/*remove_bad=*/true).size() == 4);
  CHECK(cache.verify().size() == 2);
  CHECK_FALSE(exists(made[1].path));

  // A compile that failed leaves no lock file and no entry; a lock file a
  // killed process left (or an older cujit, which kept them) is removed by prune.
  const Key never = make_key("never", "", "sm_90", 12040);
  CHECK_THROWS(cache.get_or_compile(never, "sm_90", []() -> Entry { throw std::runtime_error("nvrtc"); }));
  CHECK_FALSE(exists(cache.lock_path(never)));
  write_bytes(cache.lock_path(never), "");
  write_bytes(made[3].path + ".lock", "");

  // Left: made[0] (40 days, smaller) and made[3] (10 days).
  PruneOptions by_age;
  by_age.older_than = std::chrono::hours(24 * 30);
  PruneResult r = cache.prune(by_age);
  CHECK(r.removed == 1);
  CHECK(r.removed_bytes == made[0].size);
  CHECK(r.kept == 1);
  CHECK(r.kept_bytes == made[3].size);
  CHECK_FALSE(exists(made[0].path));
  CHECK_FALSE(exists(made[0].path + ".lock"));
  CHECK_FALSE(exists(cache.lock_path(never)));
  CHECK(exists(made[3].path + ".lock"));

  // Size: the least recently used go first.
  Key fresh = make_key("fresh", "", "sm_90", 12040);
  cache.get_or_compile(fresh, "sm_90", [] { return kernel("fresh"); });
  PruneOptions by_size;
  by_size.max_bytes = read_all(cache.entry_path(fresh)).size();
  r = cache.prune(by_size);
  CHECK(r.removed == 1);
  CHECK(r.kept == 1);
  CHECK_FALSE(exists(made[3].path));
  CHECK(exists(cache.entry_path(fresh)));

  CHECK(cache.clear() == 1);
  CHECK(cache.list().empty());
  CHECK(exists(tmp / "c/README"));
  CHECK_FALSE(exists(cache.entry_path(made[0].key) + ".tmp.AbCdEf"));
  CHECK_FALSE(exists(cache.lock_path(fresh)));
  // A cleared cache keeps working, shard directories and all.
  Warnings w2;
  KernelCache again(config_for(tmp / "c", w2));
  CHECK(again.get_or_compile(fresh, "sm_90", [] { return kernel("after"); })->cubin == "CUBIN<after>");
  CHECK(exists(again.entry_path(fresh)));
  CHECK(w2.lines.empty());
}

}  // namespace

// A lock file lives only while its key is written: 36 kernels (8 threads, some
// keys asked for by several caches at once, as processes would) leave 36
// entries and nothing else.
TEST_CASE("no lock file outlives the write it guards", "[cache]") {
  TempDir tmp;
  const std::string dir = tmp / "c";
  Warnings w;
  std::vector<Key> keys;
  for (int k = 0; k < 36; ++k) keys.push_back(make_key("lockless " + std::to_string(k), "", "sm_90", 12040));
  std::vector<std::thread> pool;
  for (int t = 0; t < 8; ++t)
    pool.emplace_back([&, t] {
      KernelCache c(config_for(dir, w));  // a cache each: they exclude each other through the lock files
      for (int k = t; k < 36; k += 4) c.get_or_compile(keys[k], "sm_90", [k] { return kernel(std::to_string(k)); });
    });
  for (auto& th : pool) th.join();
  std::vector<std::string> files;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d)) {
      const std::string shard = e->d_name;
      if (shard.size() != 2 || shard[0] == '.') continue;  // the shards, not ".."
      if (DIR* s = ::opendir((dir + "/" + shard).c_str())) {
        while (dirent* f = ::readdir(s))
          if (f->d_name[0] != '.') files.push_back(f->d_name);
        ::closedir(s);
      }
    }
    ::closedir(d);
  }
  CHECK(files.size() == 36);
  for (const std::string& f : files) CHECK(f.find(".lock") == std::string::npos);
  CHECK(w.lines.empty());
}

// The kernel cache: compiled kernels by Key, in memory in front of a disk
// cache shared by every process of the user.
//
//   KernelCache& c = global_cache();
//   Key k = make_key(source, options, "sm_90", nvrtc_version);
//   auto entry = c.get_or_compile(k, "sm_90", [&] { return compile_with_nvrtc(...); });
//
// get_or_compile runs `compile` at most once per key across all threads of the
// process and, through a lock file per key (there only while the key is
// compiled and written), across processes. A damaged or
// unreadable entry is a miss (one warning, then recompiled and replaced); a
// directory that cannot be written leaves the cache working in memory only.
// Nothing on disk can make it crash or hand back a kernel for another key.
//
// Trust (FORMAT.md, "Trust"): a cache folder that others could write (not the
// user's, writable by group or others, or below such a folder) is not used at
// all: one warning, memory only. Files below the folder are opened relative
// to it without following symbolic links; anything but a regular file in
// place of an entry is a bad entry and never blocks a reader.
#pragma once
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <sys/types.h>

#include "cache/entry.hpp"
#include "cache/key.hpp"

namespace cujit::cache {

// Receives each warning as one line without the newline. It may be called from
// several threads at once. The default writes the line to stderr.
using WarningSink = std::function<void(const std::string& line)>;

struct Config {
  std::string dir;            // entries live in dir/ab/abcd...; empty: memory only
  bool enabled = true;        // false: memory only, the disk is never touched
  bool save_source = false;   // also store Entry::source on disk
  std::chrono::milliseconds lock_timeout{30000};  // then a waiter compiles by itself
  WarningSink warn;           // empty: stderr

  using Getenv = std::function<const char*(const char*)>;
  // dir: $CUJIT_CACHE_DIR, else $XDG_CACHE_HOME/cujit, else $HOME/.cache/cujit
  // (the passwd entry's home when $HOME is unset). CUJIT_CACHE=0 disables the
  // disk, CUJIT_CACHE_SAVE_SOURCE=1 keeps sources, CUJIT_CACHE_LOCK_TIMEOUT is
  // in seconds. An invalid value is warned about through `warn` and ignored.
  // `getenv` defaults to std::getenv; tests pass their own.
  static Config from_env(const Getenv& getenv = {}, WarningSink warn = {});
};

// Per KernelCache object, since its construction. Every successful
// get_or_compile is exactly one of memory_hits, disk_hits or a compile.
struct Counters {
  std::uint64_t memory_hits = 0;
  std::uint64_t memory_waits = 0;  // memory hits that waited for another thread's compile
  std::uint64_t disk_hits = 0;
  std::uint64_t disk_bad = 0;      // unusable entries found on disk (each warned about)
  std::uint64_t compiles = 0;      // compile callbacks run, failed ones included
  std::uint64_t compile_failures = 0;
  std::uint64_t disk_writes = 0;
  std::uint64_t disk_write_failures = 0;
  std::uint64_t lock_timeouts = 0;
  // Time spent, in nanoseconds.
  std::uint64_t memory_ns = 0;      // in calls answered from memory, waiting included
  std::uint64_t disk_read_ns = 0;   // reading and checking entries, misses included
  std::uint64_t disk_write_ns = 0;
  std::uint64_t lock_wait_ns = 0;
  std::uint64_t compile_ns = 0;
};

// One entry file, for the jitcache tool.
struct EntryInfo {
  Key key;
  std::string path;
  std::uint64_t size = 0;     // bytes on disk
  std::int64_t mtime = 0;     // seconds since the epoch; refreshed on every disk hit
  std::string target;         // empty when the header cannot be read
  std::string problem;        // empty when fine; otherwise the reason, as in the warnings
};

// Checks an entry read from disk beyond its checksum, e.g. that it holds the
// kernel asked for (check_kernel_image): "" when fine, else the problem.
using Check = std::function<std::string(const Entry&)>;

struct PruneOptions {
  std::optional<std::uint64_t> max_bytes;         // then drop least recently used entries
  std::optional<std::chrono::seconds> older_than; // drop entries unused for this long
};

struct PruneResult {
  std::uint64_t removed = 0, removed_bytes = 0;
  std::uint64_t kept = 0, kept_bytes = 0;
};

class KernelCache {
 public:
  explicit KernelCache(Config cfg = Config::from_env());
  ~KernelCache();
  KernelCache(const KernelCache&) = delete;
  KernelCache& operator=(const KernelCache&) = delete;

  // The entry for `key`, built for `target`. `compile` runs only when neither
  // memory nor disk has it, and then exactly once however many threads and
  // processes ask at once (others wait; across processes for at most
  // lock_timeout). If `compile` throws, every thread waiting on that call gets
  // the exception and nothing is cached, so a later call compiles again.
  // `compile` may leave Entry::target empty; any other value than `target` is
  // a bug of the caller (Error, Internal). An entry on disk that fails
  // `check` is a bad entry (warned about, recompiled, replaced); a freshly
  // compiled one that fails it is a bug (Error, Internal).
  std::shared_ptr<const Entry> get_or_compile(const Key& key, std::string_view target,
                                              const std::function<Entry()>& compile, const Check& check = {});

  // Memory only: the entry if present and complete, else null. Never waits.
  std::shared_ptr<const Entry> find_in_memory(const Key& key) const;
  // Makes `entry` findable in memory under another key too, e.g. a
  // program+layout key (see KeyBuilder), so a later call can skip rendering
  // the source. Does nothing if `key` is present or being compiled.
  void put_in_memory(const Key& key, std::shared_ptr<const Entry> entry);

  Counters counters() const;
  const Config& config() const;
  // Whether entries are still written to disk: false when disabled or after a
  // write failed (the cache then works in memory only).
  bool disk_writable() const;
  // False when the folder breaks the trust rules (one warning says why): then
  // nothing there is read, written or removed, maintenance included.
  bool disk_trusted() const;
  std::string entry_path(const Key& key) const;  // dir/ab/abcd...
  std::string lock_path(const Key& key) const;   // dir/ab/abcd....lock

  // Maintenance, for the jitcache tool. These look at the directory only, not
  // at the memory cache, and are safe while other processes use the cache
  // (at worst one of them compiles a kernel again). `jitcache stats` is list()
  // summed up.
  std::vector<EntryInfo> list() const;                     // headers only: cheap
  std::vector<EntryInfo> verify(bool remove_bad = false) const;  // reads and checksums everything
  // Removes entries unused for `older_than`, then the least recently used
  // until at most `max_bytes` remain, and leftovers: temp files of crashed
  // writers (older than an hour) and lock files of kernels never stored.
  PruneResult prune(const PruneOptions& opts) const;
  std::uint64_t clear() const;  // removes every entry; returns how many
  // Writes an entry file, already encoded and verified (jitcache import), as
  // get_or_compile writes entries (temp file, rename). Returns 0 or an errno.
  int store_encoded(const Key& key, std::string_view bytes);

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Why the cache folder `real` (a path without symbolic links, open as `fd`)
// must not be used by user `uid`, or "" when it may be (see Trust above).
std::string untrusted_reason(const std::string& real, int fd, uid_t uid);

// The process-wide cache, configured from the environment on first use. It is
// never destroyed, so it stays usable from other static destructors.
KernelCache& global_cache();

}  // namespace cujit::cache

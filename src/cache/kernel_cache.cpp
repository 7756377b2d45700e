#include "cache/kernel_cache.hpp"

#include <dirent.h>
#include <fcntl.h>
#include <grp.h>
#include <pwd.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <future>
#include <new>
#include <mutex>
#include <random>
#include <set>
#include <system_error>
#include <thread>
#include <unordered_map>

#include "core/fail.hpp"
#include "core/number.hpp"

namespace cujit::cache {
namespace {

using Clock = std::chrono::steady_clock;
using Ptr = std::shared_ptr<const Entry>;

// What the threads waiting on one compile get: the entry, or the leader's
// failure as plain fields from which each waiter throws an exception of its
// own. Not a shared std::exception_ptr: its count and the exception's
// message string are shared through libstdc++'s own atomics, which
// ThreadSanitizer cannot see, and no two threads need the same object.
struct Outcome {
  struct Failure {
    enum class Kind { Error, Compile, BadAlloc, Other } kind = Kind::Other;
    ErrorCode code = ErrorCode::Internal;
    std::string message;
    CompileError::Parts parts;

    static std::shared_ptr<const Failure> of_current() {
      auto f = std::make_shared<Failure>();
      try {
        throw;
      } catch (const CompileError& e) {
        *f = Failure{Kind::Compile, e.code(), e.what(), {e.stage(), e.log(), e.options(), e.source()}};
      } catch (const Error& e) {
        *f = Failure{Kind::Error, e.code(), e.what(), {}};
      } catch (const std::bad_alloc&) {
        f->kind = Kind::BadAlloc;
      } catch (const std::exception& e) {
        f->message = e.what();
      } catch (...) {
        f->message = "unknown exception";
      }
      return f;
    }
  };
  Ptr entry;
  std::shared_ptr<const Failure> failure;

  [[noreturn]] void throw_copy() const {
    const Failure& f = *failure;
    switch (f.kind) {
      case Failure::Kind::Compile: throw CompileError(f.code, f.message, f.parts);
      case Failure::Kind::Error: throw Error(f.code, f.message);
      case Failure::Kind::BadAlloc: throw std::bad_alloc();
      case Failure::Kind::Other: break;
    }
    throw Error(ErrorCode::Internal, f.message);
  }
};

std::uint64_t ns_since(Clock::time_point t0) {
  return static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - t0).count());
}

std::string errno_text(int e) { return std::generic_category().message(e); }

void stderr_sink(const std::string& line) {
  // One write per line keeps lines from several threads or processes whole.
  std::string s = line + "\n";
  ssize_t n = ::write(STDERR_FILENO, s.data(), s.size());
  (void)n;
}

// ---- Files -----------------------------------------------------------------

struct Fd {
  int fd = -1;
  Fd() = default;
  explicit Fd(int f) : fd(f) {}
  Fd(Fd&& o) noexcept : fd(o.fd) { o.fd = -1; }
  Fd& operator=(Fd&& o) noexcept {
    std::swap(fd, o.fd);
    return *this;
  }
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
  explicit operator bool() const { return fd >= 0; }
};

// mkdir -p for the cache folder itself; components created here get mode
// 0700 since kernels and sources may be private. Returns 0 or an errno. The
// path above the folder is the user's own choice, so symbolic links in it are
// followed; everything below the folder is reached through its fd instead.
int make_dirs(const std::string& path) {
  for (std::size_t at = 1; at <= path.size(); ++at) {
    if (at != path.size() && path[at] != '/') continue;
    std::string part = path.substr(0, at);
    if (::mkdir(part.c_str(), 0700) == 0) continue;
    int e = errno;
    struct stat st;
    if (e == EEXIST) {
      if (::stat(part.c_str(), &st) == 0 && S_ISDIR(st.st_mode)) continue;
      return ENOTDIR;
    }
    // mkdir reports EACCES/EROFS for existing directories we may not write
    // into; that is fine as long as a deeper component exists or can be made.
    if ((e == EACCES || e == EROFS || e == EPERM) && ::stat(part.c_str(), &st) == 0 && S_ISDIR(st.st_mode))
      continue;
    return e;
  }
  return 0;
}

// ---- Trust -------------------------------------------------------------------
// Whoever can write the cache folder can plant a kernel that every program of
// the user then runs. So, as ssh does for ~/.ssh: the folder must belong to
// the user and be writable by nobody else, and every folder above it must
// belong to the user or to root and be writable by nobody else, unless its
// sticky bit keeps others from renaming what is not theirs (/tmp).

std::string mode_text(mode_t m) { return fmt::format("{:04o}", static_cast<unsigned>(m & 07777)); }

// Whether `gid` is the private group of user `owner` (user private groups,
// the default on Debian and Ubuntu with umask 002): the owner's primary group
// with no other member. Writable by that group is writable by the owner
// alone; Debian's ssh makes the same exception.
bool private_group(uid_t owner, gid_t gid) {
  std::vector<char> buf(16384);
  passwd pw;
  passwd* pwp = nullptr;
  if (::getpwuid_r(owner, &pw, buf.data(), buf.size(), &pwp) != 0 || !pwp || pwp->pw_gid != gid) return false;
  const std::string name = pwp->pw_name;
  std::vector<char> gbuf(65536);
  group gr;
  group* grp = nullptr;
  if (::getgrgid_r(gid, &gr, gbuf.data(), gbuf.size(), &grp) != 0 || !grp) return false;
  for (char** m = grp->gr_mem; m && *m; ++m)
    if (name != *m) return false;
  return true;
}

bool writable_by_others(const struct stat& st) {
  return (st.st_mode & S_IWOTH) || ((st.st_mode & S_IWGRP) && !private_group(st.st_uid, st.st_gid));
}

}  // namespace

std::string untrusted_reason(const std::string& real, int fd, uid_t uid) {
  struct stat st;
  if (::fstat(fd, &st) != 0) return fmt::format("cannot inspect it ({})", errno_text(errno));
  if (st.st_uid != uid)
    return fmt::format("it belongs to uid {}, not to you (uid {}); use a folder of your own (CUJIT_CACHE_DIR)",
                       st.st_uid, uid);
  if (writable_by_others(st))
    return fmt::format("it is writable by group or others (mode {}); chmod go-w {} fixes that", mode_text(st.st_mode),
                       real);
  std::string p = real;
  while (p.size() > 1) {
    std::size_t slash = p.rfind('/');
    p = slash == 0 || slash == std::string::npos ? "/" : p.substr(0, slash);
    if (::lstat(p.c_str(), &st) != 0) return fmt::format("cannot inspect its parent {} ({})", p, errno_text(errno));
    if (st.st_uid != uid && st.st_uid != 0)
      return fmt::format("its parent {} belongs to uid {}, neither to you (uid {}) nor to root", p, st.st_uid, uid);
    if (writable_by_others(st) && !(st.st_mode & S_ISVTX))
      return fmt::format("its parent {} is writable by group or others without the sticky bit (mode {})", p,
                         mode_text(st.st_mode));
  }
  return {};
}

namespace {

// ---- Files below the cache folder ---------------------------------------------
// Reached one name at a time relative to the folder's fd (openat, mkdirat,
// renameat, unlinkat), never through a symbolic link: a link planted in place
// of a shard folder, an entry, a lock or a temp file cannot make cujit read or
// write anything outside the folder. Anything that is not a regular file is
// looked at with fstatat before it is opened, and opened with O_NONBLOCK, so a
// FIFO or a device in place of an entry cannot block or be poked.

// Larger than any kernel; keeps a huge (or sparse) file from being read whole.
constexpr std::uint64_t kMaxEntryBytes = std::uint64_t{1} << 30;

enum class ReadStatus { Ok, Missing, Bad };

// The shard folder `name` of the cache folder `root`. With `create`, a
// missing one is made (0700) and a file or a symbolic link in its place is
// removed first (only cujit puts anything here). Sets `err` on failure: ENOENT
// when missing, ENOTDIR when something else is in its place.
Fd open_shard(int root, const std::string& name, bool create, int& err) {
  for (int attempt = 0; attempt < 3; ++attempt) {
    Fd f(::openat(root, name.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (f) return f;
    err = errno == ELOOP ? ENOTDIR : errno;
    if (!create || (err != ENOENT && err != ENOTDIR)) return Fd();
    if (err == ENOTDIR && ::unlinkat(root, name.c_str(), 0) != 0 && errno != ENOENT) {
      err = errno;
      return Fd();
    }
    if (::mkdirat(root, name.c_str(), 0700) != 0 && errno != EEXIST) {
      err = errno;
      return Fd();
    }
  }
  return Fd();
}

// Reads the regular file `name` in `dir` whole. Missing is told apart from
// every other failure, which is a problem worth a warning.
ReadStatus read_file(int dir, const std::string& name, std::string& out, std::string& problem, bool touch) {
  struct stat st;
  if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) {
    if (errno == ENOENT) return ReadStatus::Missing;
    problem = "unreadable (" + errno_text(errno) + ")";
    return ReadStatus::Bad;
  }
  if (!S_ISREG(st.st_mode)) {
    problem = "unreadable (not a regular file)";
    return ReadStatus::Bad;
  }
  Fd f(::openat(dir, name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (!f) {
    int e = errno;
    if (e == ENOENT) return ReadStatus::Missing;
    problem = e == ELOOP ? "unreadable (not a regular file)" : "unreadable (" + errno_text(e) + ")";
    return ReadStatus::Bad;
  }
  // Again on what was opened: it may have been replaced since fstatat.
  if (::fstat(f.fd, &st) != 0) {
    problem = "unreadable (" + errno_text(errno) + ")";
    return ReadStatus::Bad;
  }
  if (!S_ISREG(st.st_mode)) {
    problem = "unreadable (not a regular file)";
    return ReadStatus::Bad;
  }
  if (static_cast<std::uint64_t>(st.st_size) > kMaxEntryBytes) {
    problem = fmt::format("{} bytes, more than an entry can hold", st.st_size);
    return ReadStatus::Bad;
  }
  out.resize(static_cast<std::size_t>(st.st_size));
  std::size_t got = 0;
  while (got < out.size()) {
    ssize_t n = ::read(f.fd, &out[got], out.size() - got);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      problem = "unreadable (" + errno_text(errno) + ")";
      return ReadStatus::Bad;
    }
    if (n == 0) break;  // shrank under us: decoding reports it as truncated
    got += static_cast<std::size_t>(n);
  }
  out.resize(got);
  // mtime is the "last used" time that prune goes by.
  if (touch) (void)::futimens(f.fd, nullptr);
  return ReadStatus::Ok;
}

bool write_all(int fd, std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t n = ::write(fd, bytes.data(), bytes.size());
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      if (n == 0) errno = EIO;
      return false;
    }
    bytes.remove_prefix(static_cast<std::size_t>(n));
  }
  return true;
}

// Six random letters and digits for a temp file's name (mkostemp wants a path).
std::string random_suffix() {
  static const char kChars[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
  thread_local std::mt19937_64 gen(std::random_device{}() ^ (static_cast<std::uint64_t>(::getpid()) << 32) ^
                                   static_cast<std::uint64_t>(Clock::now().time_since_epoch().count()));
  std::string s(6, 'x');
  for (char& c : s) c = kChars[gen() % (sizeof kChars - 1)];
  return s;
}

// Temp file in the entry's folder, written, synced, then renamed over the
// entry: a reader sees the old file or the complete new one, never a part.
// O_EXCL makes the temp file new (never a planted link); renameat replaces
// whatever is at the entry's name without following it. Returns 0 or an errno.
int write_atomic(int dir, const std::string& name, std::string_view bytes) {
  std::string tmp;
  Fd f;
  for (int attempt = 0; attempt < 100 && !f; ++attempt) {
    tmp = name + ".tmp." + random_suffix();
    f = Fd(::openat(dir, tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600));
    if (!f && errno != EEXIST) return errno;
  }
  if (!f) return EEXIST;
  int e = 0;
  if (!write_all(f.fd, bytes) || ::fsync(f.fd) != 0) e = errno;
  int fd = f.fd;
  f.fd = -1;
  if (::close(fd) != 0 && e == 0) e = errno;  // NFS reports write errors late
  if (e == 0 && ::renameat(dir, tmp.c_str(), dir, name.c_str()) != 0) {
    e = errno;
    // An empty folder where the entry belongs (put there by hand) is
    // replaced like any other bad entry.
    if ((e == EISDIR || e == ENOTEMPTY || e == EEXIST) && ::unlinkat(dir, name.c_str(), AT_REMOVEDIR) == 0)
      e = ::renameat(dir, tmp.c_str(), dir, name.c_str()) == 0 ? 0 : errno;
  }
  if (e != 0) {
    ::unlinkat(dir, tmp.c_str(), 0);
    return e;
  }
  // Make the rename itself durable; losing it after a crash is only a miss.
  (void)::fsync(dir);
  return 0;
}

// Removes whatever is at `name` that is not a regular file (a link, a FIFO, a
// device, an empty folder): junk where cujit keeps its own files.
void remove_odd(int dir, const std::string& name) {
  struct stat st;
  if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0 || S_ISREG(st.st_mode)) return;
  ::unlinkat(dir, name.c_str(), S_ISDIR(st.st_mode) ? AT_REMOVEDIR : 0);
}

// ---- Locks -------------------------------------------------------------------
// flock: released by the kernel when its holder dies, and held per open file,
// so two threads or two caches of one process exclude each other too.

enum class LockStatus { Locked, TimedOut, CannotCreate, Unsupported };

LockStatus lock_file(int dir, const std::string& name, Clock::duration timeout, Fd& out, int& err) {
  const auto deadline = Clock::now() + timeout;
  auto pause = std::chrono::microseconds(500);
  for (;;) {
    remove_odd(dir, name);  // a link or FIFO planted as the lock is removed, never opened
    Fd f(::openat(dir, name.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC, 0600));
    if (!f) {
      err = errno;
      return LockStatus::CannotCreate;
    }
    struct stat held;
    if (::fstat(f.fd, &held) != 0 || !S_ISREG(held.st_mode)) {
      // Replaced between remove_odd and openat: compile without the lock.
      err = EINVAL;
      return LockStatus::Unsupported;
    }
    for (;;) {
      if (::flock(f.fd, LOCK_EX | LOCK_NB) == 0) break;
      if (errno == EINTR) continue;
      if (errno != EWOULDBLOCK) {
        err = errno;
        return LockStatus::Unsupported;
      }
      auto now = Clock::now();
      if (now >= deadline) return LockStatus::TimedOut;
      // No timed flock exists, so poll, backing off to keep idle waiters cheap.
      std::this_thread::sleep_for(std::min<Clock::duration>(pause, deadline - now));
      pause = std::min<std::chrono::microseconds>(pause * 2, std::chrono::milliseconds(20));
    }
    // prune/clear may have unlinked the file while we waited; a lock on an
    // unlinked inode excludes nobody, so start again on the new file.
    struct stat named;
    if (::fstatat(dir, name.c_str(), &named, AT_SYMLINK_NOFOLLOW) == 0 && held.st_ino == named.st_ino &&
        held.st_dev == named.st_dev) {
      out = std::move(f);
      return LockStatus::Locked;
    }
    if (Clock::now() >= deadline) return LockStatus::TimedOut;
  }
}

// Removes a lock file only while holding it, so nobody is inside its critical
// section; lock_file's inode check copes with the rest.
void remove_lock_file(int dir, const std::string& name) {
  remove_odd(dir, name);
  Fd f(::openat(dir, name.c_str(), O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC));
  if (f && ::flock(f.fd, LOCK_EX | LOCK_NB) == 0) ::unlinkat(dir, name.c_str(), 0);
}

// Removes the lock file `lock` holds, while still holding it, once its write is
// done: a waiter that opened it before sees its inode unlinked when it gets the
// lock and starts again on a new file (lock_file), where it finds the entry.
// So no lock file outlives the write it guards. Only the file `lock` holds is
// removed: one made since under the same name belongs to someone else.
void unlink_held_lock(int dir, const std::string& name, const Fd& lock) {
  if (!lock || dir < 0) return;
  struct stat held, named;
  if (::fstat(lock.fd, &held) == 0 && ::fstatat(dir, name.c_str(), &named, AT_SYMLINK_NOFOLLOW) == 0 &&
      held.st_ino == named.st_ino && held.st_dev == named.st_dev)
    ::unlinkat(dir, name.c_str(), 0);
}

// ---- Directory scan ------------------------------------------------------------

bool is_hex(std::string_view s) {
  return std::all_of(s.begin(), s.end(), [](char c) { return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'); });
}

struct Scan {
  struct File {
    int dir = -1;       // the shard folder's fd (owned by Scan::shards)
    std::string name;   // in that folder
    std::string path;   // for messages
    Key key;
    std::uint64_t size = 0;
    std::int64_t mtime = 0;
    bool regular = true;
  };
  std::vector<File> entries;
  std::vector<File> temps;  // key unused
  std::vector<File> locks;
  struct Shard {
    std::string name;
    Fd fd;
  };
  std::vector<Shard> shards;
};

// The names in the folder `dir` (not consumed), sorted.
std::vector<std::string> dir_names(int dir) {
  std::vector<std::string> names;
  int fd = ::openat(dir, ".", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return names;
  DIR* d = ::fdopendir(fd);
  if (!d) {
    ::close(fd);
    return names;
  }
  while (dirent* e = ::readdir(d)) {
    std::string n = e->d_name;
    if (n != "." && n != "..") names.push_back(std::move(n));
  }
  ::closedir(d);
  std::sort(names.begin(), names.end());
  return names;
}

Scan scan(int root, const std::string& root_path) {
  Scan s;
  if (root < 0) return s;
  for (const std::string& shard : dir_names(root)) {
    if (shard.size() != 2 || !is_hex(shard)) continue;
    int err = 0;
    Fd sfd = open_shard(root, shard, /*create=*/false, err);  // a link is no shard
    if (!sfd) continue;
    const int dir = sfd.fd;
    s.shards.push_back({shard, std::move(sfd)});
    for (const std::string& name : dir_names(dir)) {
      Scan::File f;
      f.dir = dir;
      f.name = name;
      f.path = root_path + "/" + shard + "/" + name;
      struct stat st;
      if (::fstatat(dir, name.c_str(), &st, AT_SYMLINK_NOFOLLOW) != 0) continue;
      f.size = static_cast<std::uint64_t>(st.st_size);
      f.mtime = static_cast<std::int64_t>(st.st_mtime);
      f.regular = S_ISREG(st.st_mode);
      std::string_view stem = std::string_view(name).substr(0, 32);
      auto key = Key::from_hex(stem);
      if (!key || stem.substr(0, 2) != shard) continue;  // not ours: left alone
      f.key = *key;
      std::string_view rest = std::string_view(name).substr(32);
      if (rest.empty()) s.entries.push_back(f);
      else if (rest == ".lock") s.locks.push_back(f);
      else if (rest.substr(0, 5) == ".tmp.") s.temps.push_back(f);
    }
  }
  return s;
}

std::string lock_path_of(const std::string& entry_path) { return entry_path + ".lock"; }

}  // namespace

// ---- Config --------------------------------------------------------------------

Config Config::from_env(const Getenv& getenv, WarningSink warn) {
  auto get = [&](const char* name) -> std::string {
    const char* v = getenv ? getenv(name) : std::getenv(name);
    return v ? v : "";
  };
  Config c;
  c.warn = std::move(warn);
  auto say = [&](const std::string& line) { c.warn ? c.warn(line) : stderr_sink(line); };
  auto flag = [&](const char* name, bool dflt) {
    std::string v = get(name);
    if (v.empty()) return dflt;
    if (v == "1" || v == "on" || v == "true" || v == "yes") return true;
    if (v == "0" || v == "off" || v == "false" || v == "no") return false;
    say(fmt::format("cujit: warning: ignoring {}={} (expected 0 or 1)", name, v));
    return dflt;
  };

  c.enabled = flag("CUJIT_CACHE", true);
  c.save_source = flag("CUJIT_CACHE_SAVE_SOURCE", false);
  if (std::string v = get("CUJIT_CACHE_LOCK_TIMEOUT"); !v.empty()) {
    std::optional<double> s = parse_double(v);  // not strtod, which follows the locale
    if (!s || !(*s >= 0) || *s > 1e6)
      say(fmt::format("cujit: warning: ignoring CUJIT_CACHE_LOCK_TIMEOUT={} (expected seconds)", v));
    else
      c.lock_timeout = std::chrono::milliseconds(static_cast<std::int64_t>(*s * 1000 + 0.5));
  }
  auto trimmed = [](std::string d) {
    while (d.size() > 1 && d.back() == '/') d.pop_back();
    return d;
  };
  if (std::string d = get("CUJIT_CACHE_DIR"); !d.empty()) {
    c.dir = trimmed(d);
  } else if (std::string x = get("XDG_CACHE_HOME"); !x.empty() && x[0] == '/') {
    c.dir = trimmed(x) + "/cujit";  // relative values are invalid per the XDG spec
  } else {
    std::string home = get("HOME");
    if (home.empty()) {
      passwd pw;
      passwd* found = nullptr;
      std::vector<char> buf(16384);
      if (::getpwuid_r(::getuid(), &pw, buf.data(), buf.size(), &found) == 0 && found && found->pw_dir)
        home = found->pw_dir;
    }
    if (!home.empty()) c.dir = (home == "/" ? "" : trimmed(home)) + "/.cache/cujit";
  }
  return c;
}

// ---- KernelCache -------------------------------------------------------------------

struct KernelCache::Impl {
  Config cfg;
  bool disk = false;  // enabled and a directory is known

  mutable std::mutex mu;
  // A shared_future per key: ready once compiled, pending while one thread
  // compiles and the others wait on it.
  std::unordered_map<Key, std::shared_future<Outcome>, KeyHash> memory;

  // The cache folder, opened and checked on first use (root()).
  enum class RootState { Unopened, Open, Refused, Failed };
  mutable std::mutex root_mu;
  mutable RootState root_state = RootState::Unopened;
  mutable Fd root_fd;

  mutable std::atomic<bool> degraded{false};
  mutable struct {
    std::atomic<std::uint64_t> memory_hits{0}, memory_waits{0}, disk_hits{0}, disk_bad{0}, compiles{0},
        compile_failures{0}, disk_writes{0}, disk_write_failures{0}, lock_timeouts{0}, memory_ns{0},
        disk_read_ns{0}, disk_write_ns{0}, lock_wait_ns{0}, compile_ns{0};
  } n;

  void warn(const std::string& line) const { cfg.warn ? cfg.warn(line) : stderr_sink(line); }

  std::string entry_path(const Key& key) const {
    std::string hex = key.hex();
    return cfg.dir + "/" + hex.substr(0, 2) + "/" + hex;
  }

  bool writable() const { return disk && !degraded.load() && root_state_now() != RootState::Refused; }
  RootState root_state_now() const {
    std::lock_guard<std::mutex> g(root_mu);
    return root_state;
  }

  void degrade(int err) const {
    n.disk_write_failures++;
    if (!degraded.exchange(true))
      warn(fmt::format("cujit: warning: cannot write the kernel cache in {}: {}; caching in memory only", cfg.dir,
                       errno_text(err)));
  }

  // The cache folder's fd, or -1: no disk cache (after one warning) or, when
  // not `create`, no folder yet. Opened once, after the trust check.
  int root(bool create) const {
    if (!disk) return -1;
    std::lock_guard<std::mutex> g(root_mu);
    if (root_state == RootState::Open) return root_fd.fd;
    if (root_state != RootState::Unopened) return -1;
    char* r = ::realpath(cfg.dir.c_str(), nullptr);
    int e = r ? 0 : errno;
    if (!r && e == ENOENT && create) {
      e = make_dirs(cfg.dir);
      if (e == 0) {
        r = ::realpath(cfg.dir.c_str(), nullptr);
        e = r ? 0 : errno;
      }
    }
    if (!r) {
      if (e == ENOENT && !create) return -1;  // nothing stored yet; maybe later
      root_state = RootState::Failed;
      degrade(e);
      return -1;
    }
    const std::string real = r;
    std::free(r);
    Fd f(::open(real.c_str(), O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC));
    if (!f) {
      root_state = RootState::Failed;
      degrade(errno);
      return -1;
    }
    if (std::string why = untrusted_reason(real, f.fd, ::geteuid()); !why.empty()) {
      root_state = RootState::Refused;
      warn(fmt::format("cujit: warning: not using the kernel cache in {}: {}; caching in memory only", cfg.dir, why));
      return -1;
    }
    root_fd = std::move(f);
    root_state = RootState::Open;
    return root_fd.fd;
  }

  // The entry on disk, or null. A bad entry is warned about unless `warned`
  // says that already happened for this request.
  Ptr read_entry(int root_dir, const Key& key, std::string_view target, const Check& check, bool& warned) {
    auto t0 = Clock::now();
    const std::string hex = key.hex();
    std::string bytes, problem;
    ReadStatus rs = ReadStatus::Missing;
    int err = 0;
    Fd shard = open_shard(root_dir, hex.substr(0, 2), /*create=*/false, err);
    if (shard) {
      rs = read_file(shard.fd, hex, bytes, problem, /*touch=*/true);
    } else if (err != ENOENT) {
      rs = ReadStatus::Bad;
      problem = err == ENOTDIR ? "unreadable (its shard folder is not a folder)" : "unreadable (" + errno_text(err) + ")";
    }
    Ptr result;
    if (rs == ReadStatus::Ok) {
      Decoded<Entry> d = decode_entry(bytes, key, target);
      if (d.value && check) problem = check(*d.value);
      else if (!d.value) problem = std::move(d.problem);
      if (d.value && problem.empty()) result = std::make_shared<const Entry>(std::move(*d.value));
    }
    n.disk_read_ns += ns_since(t0);
    if (!result && rs != ReadStatus::Missing && !warned) {
      warned = true;
      n.disk_bad++;
      warn(fmt::format("cujit: warning: ignoring kernel cache entry {}: {}; recompiling", entry_path(key), problem));
    }
    return result;
  }

  Ptr compile_now(std::string_view target, const std::function<Entry()>& compile, const Check& check) {
    auto t0 = Clock::now();
    n.compiles++;
    Entry e;
    try {
      e = compile();
      if (e.target.empty()) e.target = std::string(target);
      if (e.target != target)
        fail(ErrorCode::Internal, "kernel cache: compile returned an entry for {}, expected {}", e.target, target);
      // The check must pass on what NVRTC makes, or every later read would
      // discard the entry; a failure here is a cujit bug, said loudly.
      if (check)
        if (std::string problem = check(e); !problem.empty())
          fail(ErrorCode::Internal, "kernel cache: the kernel just compiled fails the entry check ({})", problem);
    } catch (...) {
      n.compile_failures++;
      n.compile_ns += ns_since(t0);
      throw;
    }
    n.compile_ns += ns_since(t0);
    return std::make_shared<const Entry>(std::move(e));
  }

  // Disk, then (under the key's lock) disk again, then compile and store.
  Ptr fill(const Key& key, std::string_view target, const std::function<Entry()>& compile, const Check& check) {
    const int rdir = root(/*create=*/true);
    if (rdir < 0) return compile_now(target, compile, check);
    const std::string hex = key.hex(), shard_name = hex.substr(0, 2), lock_name = hex + ".lock";
    bool warned = false;
    if (Ptr p = read_entry(rdir, key, target, check, warned)) {
      n.disk_hits++;
      return p;
    }
    Fd lock, shard;
    // Declared after them, so it runs while the lock is still held, on every way out.
    struct LockRemover {
      const Fd& lock;
      const Fd& shard;
      const std::string& name;
      ~LockRemover() { unlink_held_lock(shard ? shard.fd : -1, name, lock); }
    } remove_lock{lock, shard, lock_name};
    if (writable()) {
      auto t0 = Clock::now();
      int err = 0;
      LockStatus ls = LockStatus::CannotCreate;
      // Twice: `jitcache clear` may remove the shard folder in between.
      for (int attempt = 0; attempt < 2 && ls == LockStatus::CannotCreate; ++attempt) {
        err = 0;
        shard = open_shard(rdir, shard_name, /*create=*/true, err);
        if (shard) ls = lock_file(shard.fd, lock_name, cfg.lock_timeout, lock, err);
        if (err != ENOENT) break;
      }
      n.lock_wait_ns += ns_since(t0);
      if (ls == LockStatus::CannotCreate) {
        degrade(err);
      } else if (ls == LockStatus::TimedOut) {
        n.lock_timeouts++;
        warn(fmt::format("cujit: warning: waited {} s for the kernel cache lock {}; compiling without it",
                         static_cast<double>(cfg.lock_timeout.count()) / 1000, lock_path_of(entry_path(key))));
      }
      // Unsupported (e.g. ENOLCK on some network file systems): the lock only
      // saves duplicate compiles, and writes stay atomic without it.
      if (ls != LockStatus::CannotCreate) {
        // Whoever held the lock has probably just stored the kernel.
        if (Ptr p = read_entry(rdir, key, target, check, warned)) {
          n.disk_hits++;
          return p;
        }
      }
    }
    Ptr p = compile_now(target, compile, check);
    if (writable() && shard) {
      auto t0 = Clock::now();
      std::string bytes = encode_entry(key, *p, cfg.save_source);
      int err = write_atomic(shard.fd, hex, bytes);
      // ENOENT: `jitcache clear` removed the shard folder meanwhile.
      if (err == ENOENT) {
        int e2 = 0;
        shard = open_shard(rdir, shard_name, /*create=*/true, e2);
        err = shard ? write_atomic(shard.fd, hex, bytes) : e2;
      }
      n.disk_write_ns += ns_since(t0);
      if (err != 0) degrade(err);
      else n.disk_writes++;
    }
    return p;  // `lock` is removed and released after the entry is in place
  }
};

KernelCache::KernelCache(Config cfg) : impl_(std::make_unique<Impl>()) {
  impl_->cfg = std::move(cfg);
  impl_->disk = impl_->cfg.enabled && !impl_->cfg.dir.empty();
}

KernelCache::~KernelCache() = default;

std::shared_ptr<const Entry> KernelCache::get_or_compile(const Key& key, std::string_view target,
                                                         const std::function<Entry()>& compile, const Check& check) {
  Impl& m = *impl_;
  auto t0 = Clock::now();
  std::promise<Outcome> promise;
  std::shared_future<Outcome> result;
  bool leader = false;
  {
    std::lock_guard<std::mutex> g(m.mu);
    auto it = m.memory.find(key);
    if (it != m.memory.end()) {
      result = it->second;
    } else {
      result = promise.get_future().share();
      m.memory.emplace(key, result);
      leader = true;
    }
  }
  if (!leader) {
    if (result.wait_for(std::chrono::seconds(0)) != std::future_status::ready) m.n.memory_waits++;
    const Outcome& o = result.get();
    if (!o.entry) o.throw_copy();
    m.n.memory_hits++;
    m.n.memory_ns += ns_since(t0);
    return o.entry;
  }
  try {
    Ptr p = m.fill(key, target, compile, check);
    promise.set_value(Outcome{p, {}});
    return p;
  } catch (...) {
    {
      // Forget the failure so that a later call tries again.
      std::lock_guard<std::mutex> g(m.mu);
      m.memory.erase(key);
    }
    promise.set_value(Outcome{nullptr, Outcome::Failure::of_current()});
    throw;
  }
}

std::shared_ptr<const Entry> KernelCache::find_in_memory(const Key& key) const {
  std::lock_guard<std::mutex> g(impl_->mu);
  auto it = impl_->memory.find(key);
  if (it == impl_->memory.end() || it->second.wait_for(std::chrono::seconds(0)) != std::future_status::ready)
    return nullptr;
  return it->second.get().entry;  // null for a failure still in the map
}

void KernelCache::put_in_memory(const Key& key, std::shared_ptr<const Entry> entry) {
  if (!entry) return;
  std::promise<Outcome> p;
  p.set_value(Outcome{std::move(entry), {}});
  std::lock_guard<std::mutex> g(impl_->mu);
  impl_->memory.emplace(key, p.get_future().share());
}

Counters KernelCache::counters() const {
  const auto& n = impl_->n;
  Counters c;
  c.memory_hits = n.memory_hits;
  c.memory_waits = n.memory_waits;
  c.disk_hits = n.disk_hits;
  c.disk_bad = n.disk_bad;
  c.compiles = n.compiles;
  c.compile_failures = n.compile_failures;
  c.disk_writes = n.disk_writes;
  c.disk_write_failures = n.disk_write_failures;
  c.lock_timeouts = n.lock_timeouts;
  c.memory_ns = n.memory_ns;
  c.disk_read_ns = n.disk_read_ns;
  c.disk_write_ns = n.disk_write_ns;
  c.lock_wait_ns = n.lock_wait_ns;
  c.compile_ns = n.compile_ns;
  return c;
}

const Config& KernelCache::config() const { return impl_->cfg; }
bool KernelCache::disk_writable() const {
  impl_->root(/*create=*/false);  // a folder that exists is checked now, not at the first compile
  return impl_->writable();
}
bool KernelCache::disk_trusted() const {
  impl_->root(/*create=*/false);
  return impl_->root_state_now() != Impl::RootState::Refused;
}
std::string KernelCache::entry_path(const Key& key) const { return impl_->entry_path(key); }
std::string KernelCache::lock_path(const Key& key) const { return lock_path_of(impl_->entry_path(key)); }

// ---- Maintenance -----------------------------------------------------------------

std::vector<EntryInfo> KernelCache::list() const {
  std::vector<EntryInfo> out;
  for (const Scan::File& f : scan(impl_->root(false), impl_->cfg.dir).entries) {
    EntryInfo info{f.key, f.path, f.size, f.mtime, {}, {}};
    Fd fd(f.regular ? ::openat(f.dir, f.name.c_str(), O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC) : -1);
    struct stat st;
    std::string head(kHeaderSize + 64, '\0');  // room for the target
    ssize_t got = -1;
    if (!f.regular || (fd && (::fstat(fd.fd, &st) != 0 || !S_ISREG(st.st_mode)))) {
      info.problem = "unreadable (not a regular file)";
    } else if (!fd || (got = ::pread(fd.fd, head.data(), head.size(), 0)) < 0) {
      info.problem = "unreadable (" + errno_text(errno) + ")";
    } else {
      head.resize(static_cast<std::size_t>(got));
      Decoded<Header> h = decode_header(head, &info.target);
      if (!h.value) info.problem = h.problem;
      else if (h.value->file_size() != f.size)
        info.problem = f.size < h.value->file_size()
                           ? fmt::format("truncated ({} of {} bytes)", f.size, h.value->file_size())
                           : fmt::format("{} bytes, expected {}", f.size, h.value->file_size());
      else if (h.value->key != f.key)
        info.problem = fmt::format("holds key {}", h.value->key.hex());
    }
    out.push_back(std::move(info));
  }
  return out;
}

std::vector<EntryInfo> KernelCache::verify(bool remove_bad) const {
  std::vector<EntryInfo> out;
  for (const Scan::File& f : scan(impl_->root(false), impl_->cfg.dir).entries) {
    EntryInfo info{f.key, f.path, f.size, f.mtime, {}, {}};
    std::string bytes;
    // Not touched: verifying is no use of the kernel.
    ReadStatus rs = read_file(f.dir, f.name, bytes, info.problem, /*touch=*/false);
    if (rs == ReadStatus::Missing) continue;  // removed meanwhile
    if (rs == ReadStatus::Ok) {
      Decoded<Entry> d = decode_entry(bytes, f.key, {});
      if (d.value) info.target = d.value->target;
      else info.problem = d.problem;
    }
    if (!info.problem.empty() && remove_bad) {
      ::unlinkat(f.dir, f.name.c_str(), 0);
      remove_odd(f.dir, f.name);  // an empty folder in its place
    }
    out.push_back(std::move(info));
  }
  return out;
}

PruneResult KernelCache::prune(const PruneOptions& opts) const {
  Scan s = scan(impl_->root(false), impl_->cfg.dir);
  PruneResult r;
  const std::int64_t now = static_cast<std::int64_t>(::time(nullptr));
  // A temp file this old belongs to a writer that crashed.
  for (const Scan::File& t : s.temps)
    if (now - t.mtime > 3600) ::unlinkat(t.dir, t.name.c_str(), 0);
  // Least recently used first.
  std::sort(s.entries.begin(), s.entries.end(), [](const Scan::File& a, const Scan::File& b) {
    return a.mtime != b.mtime ? a.mtime < b.mtime : a.path < b.path;
  });
  // Lock files of kernels never stored (their compile failed); one in use
  // cannot be taken and stays.
  std::set<std::string> stored;
  for (const Scan::File& f : s.entries) stored.insert(f.path);
  for (const Scan::File& l : s.locks)
    if (!stored.count(l.path.substr(0, l.path.size() - 5))) remove_lock_file(l.dir, l.name);
  std::uint64_t total = 0;
  for (const Scan::File& f : s.entries) total += f.size;
  for (const Scan::File& f : s.entries) {
    bool old = opts.older_than && now - f.mtime > opts.older_than->count();
    bool over = opts.max_bytes && total > *opts.max_bytes;
    if ((old || over) && ::unlinkat(f.dir, f.name.c_str(), 0) == 0) {
      remove_lock_file(f.dir, f.name + ".lock");
      total -= f.size;
      r.removed++;
      r.removed_bytes += f.size;
    } else {
      r.kept++;
      r.kept_bytes += f.size;
    }
  }
  return r;
}

std::uint64_t KernelCache::clear() const {
  const int rdir = impl_->root(false);
  Scan s = scan(rdir, impl_->cfg.dir);
  std::uint64_t removed = 0;
  for (const Scan::File& f : s.entries) {
    if (::unlinkat(f.dir, f.name.c_str(), 0) == 0) removed++;
    else remove_odd(f.dir, f.name);
  }
  for (const Scan::File& t : s.temps) ::unlinkat(t.dir, t.name.c_str(), 0);
  for (const Scan::File& l : s.locks) remove_lock_file(l.dir, l.name);
  for (const Scan::Shard& d : s.shards) ::unlinkat(rdir, d.name.c_str(), AT_REMOVEDIR);  // only if now empty
  return removed;
}

int KernelCache::store_encoded(const Key& key, std::string_view bytes) {
  if (!impl_->disk) return ENOENT;
  // As a compile stores: through the folder's fd, never following a link.
  const int rdir = impl_->root(true);
  if (rdir < 0) return EACCES;
  const std::string hex = key.hex();
  int err = 0;
  Fd shard = open_shard(rdir, hex.substr(0, 2), /*create=*/true, err);
  if (!shard) return err ? err : EACCES;
  return write_atomic(shard.fd, hex, bytes);
}

KernelCache& global_cache() {
  static KernelCache* cache = new KernelCache();
  return *cache;
}

}  // namespace cujit::cache

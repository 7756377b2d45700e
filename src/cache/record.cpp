#include "cache/record.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <mutex>
#include <set>
#include <utility>

#include <fmt/format.h>

namespace cujit {
namespace {

constexpr std::string_view kTrailerLine = "// cujit-recipe: ";

std::string record_path() {
  static const std::string path = [] {
    const char* v = std::getenv("CUJIT_RECORD");
    return std::string(v ? v : "");
  }();
  return path;
}

void warn_once(const std::string& line) {
  static std::atomic<bool> warned{false};
  if (warned.exchange(true)) return;
  std::string s = line + "\n";
  ssize_t n = ::write(STDERR_FILENO, s.data(), s.size());
  (void)n;
}

}  // namespace

std::string toml_quote(std::string_view s) {
  std::string out = "\"";
  for (std::size_t k = 0; k < s.size(); ++k) {
    const char c = s[k];
    const unsigned char b = static_cast<unsigned char>(c);
    if (b >= 0x80) {
      // Manifests are ASCII (src/api/manifest.cpp): UTF-8 becomes \uXXXX; a
      // byte that is no UTF-8 becomes U+FFFD.
      int len = b >= 0xF0 ? 4 : b >= 0xE0 ? 3 : b >= 0xC0 ? 2 : 1;
      std::uint32_t cp = len == 4 ? b & 0x07u : len == 3 ? b & 0x0Fu : b & 0x1Fu;
      bool ok = len > 1 && k + static_cast<std::size_t>(len) <= s.size();
      for (int j = 1; ok && j < len; ++j) {
        unsigned char t = static_cast<unsigned char>(s[k + static_cast<std::size_t>(j)]);
        ok = (t & 0xC0) == 0x80;
        cp = (cp << 6) | (t & 0x3Fu);
      }
      ok = ok && cp <= 0x10FFFF && !(cp >= 0xD800 && cp <= 0xDFFF) && cp >= (len == 2 ? 0x80u : len == 3 ? 0x800u : 0x10000u);
      if (!ok) cp = 0xFFFD, len = 1;
      out += cp > 0xFFFF ? fmt::format("\\U{:08X}", cp) : fmt::format("\\u{:04X}", cp);
      k += static_cast<std::size_t>(len) - 1;
      continue;
    }
    switch (c) {
      case '"': out += "\\\""; break;
      case '\\': out += "\\\\"; break;
      case '\n': out += "\\n"; break;
      case '\t': out += "\\t"; break;
      case '\r': out += "\\r"; break;
      default:
        if (static_cast<unsigned char>(c) < 0x20 || c == 0x7f) out += fmt::format("\\u{:04X}", static_cast<unsigned char>(c));
        else out += c;
    }
  }
  return out + "\"";
}

bool recording() { return !record_path().empty(); }

void record_kernel(const std::string& entry) {
  const std::string path = record_path();
  if (path.empty()) return;
  // Within a process, each entry is appended at most once.
  static std::mutex mu;
  static std::set<std::string> done;
  std::lock_guard<std::mutex> guard(mu);
  if (done.count(entry)) return;
  auto fail_with = [&](const char* what) {
    warn_once(fmt::format("cujit: warning: cannot record kernels in {} (CUJIT_RECORD): {}: {}", path, what,
                          std::strerror(errno)));
  };
  int fd = ::open(path.c_str(), O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (fd < 0) return fail_with("open");
  struct Closer {
    int fd;
    ~Closer() { ::close(fd); }
  } closer{fd};
  while (::flock(fd, LOCK_EX) != 0)
    if (errno != EINTR) return fail_with("flock");
  // Under the lock: the whole file, to skip an entry another process recorded.
  std::string text;
  char buf[65536];
  off_t at = 0;
  for (;;) {
    ssize_t n = ::pread(fd, buf, sizeof buf, at);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return fail_with("read");
    if (n == 0) break;
    text.append(buf, static_cast<std::size_t>(n));
    at += n;
  }
  done.insert(entry);
  // Entries are compared whole: each starts with "[[kernel]]" on its own line.
  if (text.find("\n" + entry) != std::string::npos || text.compare(0, entry.size(), entry) == 0) return;
  std::string add;
  if (text.empty()) add = "# cujit precompile manifest, recorded (CUJIT_RECORD); compile with: jitcache precompile FILE\n";
  else if (text.back() != '\n') add = "\n";
  add += "\n" + entry;
  const char* p = add.data();
  std::size_t left = add.size();
  while (left > 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return fail_with("write");
    p += n;
    left -= static_cast<std::size_t>(n);
  }
}

namespace {
thread_local RecordGroup* t_group = nullptr;
}  // namespace

RecordGroup::RecordGroup(std::function<std::string()> entry) : make_(std::move(entry)), outer_(t_group) {
  t_group = this;
}
RecordGroup::~RecordGroup() { t_group = outer_; }

const std::string& RecordGroup::entry() {
  if (!made_) {
    entry_ = make_();
    made_ = true;
  }
  return entry_;
}

std::string group_recipe(const std::string& own) { return t_group ? t_group->entry() : own; }

std::string recipe_trailer(std::string_view recipe) {
  std::string out = "\n";
  while (!recipe.empty()) {
    std::size_t nl = recipe.find('\n');
    out += kTrailerLine;
    out += recipe.substr(0, nl);
    out += '\n';
    recipe = nl == std::string_view::npos ? std::string_view() : recipe.substr(nl + 1);
  }
  return out;
}

std::string recipe_from_ptx(std::string_view ptx) {
  std::string out;
  std::size_t at = ptx.find(std::string("\n") + std::string(kTrailerLine));
  while (at != std::string_view::npos && at + 1 < ptx.size()) {
    std::string_view line = ptx.substr(at + 1);
    if (line.compare(0, kTrailerLine.size(), kTrailerLine) != 0) break;
    line.remove_prefix(kTrailerLine.size());
    std::size_t nl = line.find('\n');
    out += line.substr(0, nl);
    out += '\n';
    if (nl == std::string_view::npos) break;
    at += 1 + kTrailerLine.size() + nl;
  }
  return out;
}

}  // namespace cujit

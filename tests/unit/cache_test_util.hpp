// What the kernel-cache tests share: a private temporary folder that is
// removed with everything in it (permissions the tests took away are given
// back first), a warning collector, and a cache configuration over a folder.
#pragma once
#include <ftw.h>
#include <stdlib.h>
#include <sys/stat.h>

#include <chrono>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "catch.hpp"
#include "cache/kernel_cache.hpp"

namespace cujit::cache::test {

class TempDir {
 public:
  // `tag` names the folder: /tmp/cujit-<tag>-test.XXXXXX (or under $TMPDIR).
  explicit TempDir(const char* tag = "cache") {
    const char* base = std::getenv("TMPDIR");
    std::string templ = std::string(base && *base ? base : "/tmp") + "/cujit-" + tag + "-test.XXXXXX";
    if (!::mkdtemp(templ.data())) FAIL("mkdtemp failed");
    // The resolved path: the trust rules compare folders after resolving links.
    char* r = ::realpath(templ.c_str(), nullptr);
    path_ = r ? r : templ;
    std::free(r);
  }
  ~TempDir() {
    // Tests take permissions away; give them back so everything can go.
    ::nftw(path_.c_str(), [](const char* p, const struct stat* st, int type, FTW*) {
      if (type == FTW_D || type == FTW_DNR || (st && S_ISDIR(st->st_mode))) ::chmod(p, 0700);
      return 0;
    }, 16, FTW_PHYS);
    ::nftw(path_.c_str(), [](const char* p, const struct stat*, int, FTW*) {
      (void)::remove(p);
      return 0;
    }, 16, FTW_DEPTH | FTW_PHYS);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  const std::string& path() const { return path_; }
  std::string operator/(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

struct Warnings {
  std::mutex mu;
  std::vector<std::string> lines;
  WarningSink sink() {
    return [this](const std::string& line) {
      std::lock_guard<std::mutex> g(mu);
      lines.push_back(line);
    };
  }
};

inline Config config_for(const std::string& dir, Warnings& w,
                         std::chrono::milliseconds lock_timeout = std::chrono::seconds(10)) {
  Config c;
  c.dir = dir;
  c.lock_timeout = lock_timeout;
  c.warn = w.sink();
  return c;
}

}  // namespace cujit::cache::test

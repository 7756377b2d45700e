#include "core/host_pool.hpp"

#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <mutex>
#include <vector>

#include "core/pool.hpp"  // pool_env_*, and the public host pool's declarations

namespace cujit {
namespace {

constexpr std::size_t kHuge = std::size_t{2} << 20;

// A kept block serves a request of at least this share of its size, so that
// a small array does not hold a much larger block.
constexpr std::size_t kFitNum = 4, kFitDen = 5;

struct HostPool {
  std::mutex mu;
  std::vector<HostBlock> kept;  // oldest first
  std::uint64_t kept_bytes = 0, limit = 0, reuses = 0, fresh = 0, trims = 0;

  // Frees the oldest kept blocks until at most `keep` bytes remain.
  void shrink_to(std::uint64_t keep) {
    std::size_t k = 0;
    for (; k < kept.size() && kept_bytes > keep; ++k) {
      std::free(kept[k].p);
      kept_bytes -= kept[k].bytes;
    }
    kept.erase(kept.begin(), kept.begin() + static_cast<std::ptrdiff_t>(k));
  }
};

std::uint64_t default_limit() {
  const long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
  if (pages <= 0 || page <= 0) return std::uint64_t{1} << 30;
  return static_cast<std::uint64_t>(pages) * static_cast<std::uint64_t>(page) / 8;
}

HostPool& pool() {
  // Never destroyed: arrays may be freed from static destructors.
  static HostPool* p = [] {
    auto* hp = new HostPool;
    hp->limit = pool_env_switch("CUJIT_HOST_POOL", true) ? pool_env_bytes("CUJIT_HOST_POOL_KEEP", default_limit()) : 0;
    return hp;
  }();
  return *p;
}

constexpr std::size_t kSmallStep = std::size_t{64} << 10;

std::size_t round_block(std::size_t bytes) {
  const std::size_t step = bytes >= kHostPoolHuge ? kHuge : kSmallStep;
  return (bytes + step - 1) / step * step;
}

void* fresh_block(std::size_t bytes) {
  if (bytes < kHostPoolHuge) return std::aligned_alloc(4096, bytes);
  void* p = std::aligned_alloc(kHuge, bytes);
#ifdef MADV_HUGEPAGE
  // One page fault per 2 MiB at the first touch instead of one per 4 KiB, as
  // NumPy asks for its large arrays. Advice only: failure changes nothing.
  if (p) madvise(p, bytes, MADV_HUGEPAGE);
#endif
  return p;
}

}  // namespace

HostBlock host_pool_take(std::size_t bytes) {
  const std::size_t rounded = round_block(bytes);
  HostPool& hp = pool();
  {
    std::lock_guard<std::mutex> lock(hp.mu);
    std::size_t best = hp.kept.size();
    for (std::size_t k = 0; k < hp.kept.size(); ++k) {
      const std::size_t size = hp.kept[k].bytes;
      if (size >= rounded && size / kFitDen * kFitNum <= rounded && (best == hp.kept.size() || size < hp.kept[best].bytes))
        best = k;
    }
    if (best != hp.kept.size()) {
      const HostBlock b = hp.kept[best];
      hp.kept.erase(hp.kept.begin() + static_cast<std::ptrdiff_t>(best));
      hp.kept_bytes -= b.bytes;
      ++hp.reuses;
      return b;
    }
    ++hp.fresh;
  }
  if (void* p = fresh_block(rounded)) return {p, rounded};
  {
    std::lock_guard<std::mutex> lock(hp.mu);
    if (hp.kept.empty()) return {};
    hp.shrink_to(0);
    ++hp.trims;
  }
  return {fresh_block(rounded), rounded};
}

void host_pool_give(HostBlock b) noexcept {
  if (!b.p) return;
  HostPool& hp = pool();
  {
    std::lock_guard<std::mutex> lock(hp.mu);
    if (b.bytes <= hp.limit) {
      try {
        hp.kept.push_back(b);
        hp.kept_bytes += b.bytes;
        hp.shrink_to(hp.limit);
        return;
      } catch (...) {  // no room to note it: free it instead
      }
    }
  }
  std::free(b.p);
}

// ---------------------------------------------------------------- public API

HostPoolStats host_pool_stats() {
  HostPool& hp = pool();
  std::lock_guard<std::mutex> lock(hp.mu);
  HostPoolStats s;
  s.kept_bytes = hp.kept_bytes;
  s.kept_blocks = hp.kept.size();
  s.limit = hp.limit;
  s.reuses = hp.reuses;
  s.fresh = hp.fresh;
  s.oom_trims = hp.trims;
  return s;
}

void trim_host_pool(std::uint64_t keep_bytes) {
  HostPool& hp = pool();
  std::lock_guard<std::mutex> lock(hp.mu);
  hp.shrink_to(keep_bytes);
}

void set_host_pool_limit(std::uint64_t bytes) {
  HostPool& hp = pool();
  std::lock_guard<std::mutex> lock(hp.mu);
  hp.limit = bytes;
  hp.shrink_to(bytes);
}

}  // namespace cujit

#include "cujit/cache.hpp"

#include "kernel_cache.hpp"

namespace cujit {

KernelCacheStats kernel_cache_stats() {
  cache::Counters c = cache::global_cache().counters();
  KernelCacheStats s;
  s.compiles = c.compiles;
  s.disk_hits = c.disk_hits;
  s.memory_hits = c.memory_hits;
  s.compile_ms = static_cast<double>(c.compile_ns) / 1e6;
  return s;
}

}  // namespace cujit

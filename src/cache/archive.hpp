// Cache export files: many entries packed into one file, to ship a cache to
// other machines (`jitcache export` / `jitcache import`). The layout is in
// cache/FORMAT.md ("Export file").
//
// An own format rather than tar/libarchive: every entry already carries its
// key and an XXH3 checksum, so the pack only adds framing, the versions that
// decide whether its kernels can ever be looked up (entry format, NVRTC), and
// a checksum over the whole file; it stays a few dozen lines without a new
// dependency, and import can refuse a file before writing anything.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "cache/kernel_cache.hpp"

namespace cujit::cache {

struct ExportResult {
  std::uint64_t entries = 0, bytes = 0;
  std::uint64_t skipped_bad = 0;  // damaged entries left out (each warned about)
};

// Packs the valid entries of `cache`'s directory, of `targets` only when not
// empty ("sm_90"), into `path` (written to a temp file, then renamed).
// fail(Data) when it cannot be written.
ExportResult export_cache(const KernelCache& cache, const std::string& path, const std::vector<std::string>& targets,
                          int nvrtc_version);

struct ImportResult {
  std::uint64_t added = 0;    // new or replaced entries
  std::uint64_t present = 0;  // identical entries already there
};

// Reads and verifies the whole file first (magic, versions, file checksum,
// framing, each entry's own checks); a damaged, truncated or foreign file is
// refused with fail(Data) and nothing is imported. Then each entry is written
// as the cache writes entries (temp file, rename).
ImportResult import_cache(KernelCache& cache, const std::string& path, int nvrtc_version);

}  // namespace cujit::cache

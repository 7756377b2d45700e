// A cached kernel and its on-disk encoding (the layout is in src/cache/FORMAT.md).
// Pure functions over bytes; no file system here.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "cache/key.hpp"

namespace cujit::cache {

struct Entry {
  std::string target;  // e.g. "sm_90"
  std::string cubin;   // may be empty when only PTX was produced
  std::string ptx;
  std::string source;  // the generated CUDA source; on disk only with CUJIT_CACHE_SAVE_SOURCE=1
};

inline constexpr std::size_t kHeaderSize = 64;

// The whole file for `entry` under `key`. Writes `entry.source` only when
// `with_source`.
std::string encode_entry(const Key& key, const Entry& entry, bool with_source);

struct Header {
  std::uint32_t version = 0;
  Key key;
  std::uint64_t target_len = 0, cubin_len = 0, ptx_len = 0, source_len = 0;
  std::uint64_t checksum = 0;
  std::uint64_t file_size() const { return kHeaderSize + target_len + cubin_len + ptx_len + source_len; }
};

// Either a value or the reason there is none, worded for a warning line
// ("checksum mismatch", "truncated (70 of 96 bytes)").
template <class T>
struct Decoded {
  std::optional<T> value;
  std::string problem;
};

// Checks magic, format version and that the file size matches the lengths;
// enough for listing. The target is read too when `bytes` holds it.
Decoded<Header> decode_header(std::string_view bytes, std::string* target = nullptr);

// Full check: header, size, checksum, that the header names `expect_key` and
// that the entry is for `expect_target` (either check is skipped when empty).
Decoded<Entry> decode_entry(std::string_view bytes, const std::optional<Key>& expect_key,
                            std::string_view expect_target);

}  // namespace cujit::cache

// Cache keys: 128-bit XXH3 hashes that name a compiled kernel on disk and in
// memory.
#pragma once
#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

namespace cujit::cache {

// Bumped whenever the entry file layout (src/cache/FORMAT.md) or anything else that
// changes the meaning of a cached kernel changes; it is hashed into every key,
// so old entries are simply never looked up again.
inline constexpr std::uint32_t kFormatVersion = 1;

struct Key {
  std::uint64_t hi = 0, lo = 0;
  // 32 lower-case hex digits, hi first: the entry's file name.
  std::string hex() const;
  // The inverse of hex(); nullopt unless `s` is exactly 32 hex digits.
  static std::optional<Key> from_hex(std::string_view s);
  bool operator==(const Key& o) const { return hi == o.hi && lo == o.lo; }
  bool operator!=(const Key& o) const { return !(*this == o); }
};

// The key of a compiled kernel. Everything that can change the binary NVRTC
// produces goes in; nothing else does, so identical requests from different
// processes meet on one entry.
Key make_key(std::string_view source, std::string_view options, std::string_view target,
             int nvrtc_version);

// Builds a key from several parts, e.g. a program's text plus the dtypes,
// ranks and layout of its arguments, so the memory cache can be consulted
// before any source is rendered. Each part is length-prefixed: ("ab","c") and
// ("a","bc") give different keys. Keys built here never equal make_key()'s.
class KeyBuilder {
 public:
  KeyBuilder() { buf_.reserve(256); }  // a program key's parts, in one allocation
  KeyBuilder& add(std::string_view bytes);
  KeyBuilder& add(std::uint64_t value);
  Key finish() const;

 private:
  std::string buf_;
};

// The key of one run of bytes (a one-part KeyBuilder).
Key hash_bytes(std::string_view bytes);

struct KeyHash {
  std::size_t operator()(const Key& k) const noexcept { return static_cast<std::size_t>(k.hi ^ k.lo); }
};

}  // namespace cujit::cache

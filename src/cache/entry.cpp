#include "cache/entry.hpp"

#include <fmt/format.h>

#include <cstring>

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace cujit::cache {
namespace {

constexpr char kMagic[8] = {'C', 'U', 'J', 'I', 'T', 'K', 'R', 'N'};
// The checksum covers everything before its own field and every payload byte.
constexpr std::size_t kChecksumOffset = 56;

// Explicit little-endian so a cache directory can be shared between machines.
void put_u32(char* p, std::uint32_t v) {
  for (int k = 0; k < 4; ++k) p[k] = static_cast<char>((v >> (8 * k)) & 0xff);
}
void put_u64(char* p, std::uint64_t v) {
  for (int k = 0; k < 8; ++k) p[k] = static_cast<char>((v >> (8 * k)) & 0xff);
}
std::uint32_t get_u32(const char* p) {
  std::uint32_t v = 0;
  for (int k = 3; k >= 0; --k) v = (v << 8) | static_cast<unsigned char>(p[k]);
  return v;
}
std::uint64_t get_u64(const char* p) {
  std::uint64_t v = 0;
  for (int k = 7; k >= 0; --k) v = (v << 8) | static_cast<unsigned char>(p[k]);
  return v;
}

std::uint64_t checksum(std::string_view file) {
  XXH3_state_t state;
  XXH3_64bits_reset(&state);
  XXH3_64bits_update(&state, file.data(), kChecksumOffset);
  XXH3_64bits_update(&state, file.data() + kHeaderSize, file.size() - kHeaderSize);
  return XXH3_64bits_digest(&state);
}

}  // namespace

std::string encode_entry(const Key& key, const Entry& entry, bool with_source) {
  std::string_view source = with_source ? std::string_view(entry.source) : std::string_view();
  std::string out(kHeaderSize, '\0');
  std::memcpy(out.data(), kMagic, sizeof kMagic);
  put_u32(&out[8], kFormatVersion);
  put_u32(&out[12], static_cast<std::uint32_t>(entry.target.size()));
  put_u64(&out[16], entry.cubin.size());
  put_u64(&out[24], entry.ptx.size());
  put_u64(&out[32], source.size());
  put_u64(&out[40], key.hi);
  put_u64(&out[48], key.lo);
  out.reserve(kHeaderSize + entry.target.size() + entry.cubin.size() + entry.ptx.size() + source.size());
  out += entry.target;
  out += entry.cubin;
  out += entry.ptx;
  out += source;
  put_u64(&out[kChecksumOffset], checksum(out));
  return out;
}

Decoded<Header> decode_header(std::string_view bytes, std::string* target) {
  Decoded<Header> r;
  // Magic and version first: a file of another format may have another header size.
  if (bytes.size() < 12) {
    r.problem = fmt::format("truncated header ({} bytes)", bytes.size());
    return r;
  }
  if (std::memcmp(bytes.data(), kMagic, sizeof kMagic) != 0) {
    r.problem = "bad magic";
    return r;
  }
  Header h;
  h.version = get_u32(&bytes[8]);
  if (h.version != kFormatVersion) {
    r.problem = fmt::format("format version {}, expected {}", h.version, kFormatVersion);
    return r;
  }
  if (bytes.size() < kHeaderSize) {
    r.problem = fmt::format("truncated header ({} bytes)", bytes.size());
    return r;
  }
  h.target_len = get_u32(&bytes[12]);
  h.cubin_len = get_u64(&bytes[16]);
  h.ptx_len = get_u64(&bytes[24]);
  h.source_len = get_u64(&bytes[32]);
  h.key = Key{get_u64(&bytes[40]), get_u64(&bytes[48])};
  h.checksum = get_u64(&bytes[kChecksumOffset]);
  // Each length is bounded before summing so a corrupt header cannot overflow.
  constexpr std::uint64_t kLimit = std::uint64_t{1} << 48;
  if (h.cubin_len > kLimit || h.ptx_len > kLimit || h.source_len > kLimit) {
    r.problem = "corrupt header (payload length)";
    return r;
  }
  if (target && bytes.size() >= kHeaderSize + h.target_len)
    target->assign(bytes.substr(kHeaderSize, h.target_len));
  r.value = h;
  return r;
}

Decoded<Entry> decode_entry(std::string_view bytes, const std::optional<Key>& expect_key,
                            std::string_view expect_target) {
  Decoded<Entry> r;
  Decoded<Header> dh = decode_header(bytes);
  if (!dh.value) {
    r.problem = std::move(dh.problem);
    return r;
  }
  const Header& h = *dh.value;
  if (bytes.size() != h.file_size()) {
    r.problem = bytes.size() < h.file_size()
                    ? fmt::format("truncated ({} of {} bytes)", bytes.size(), h.file_size())
                    : fmt::format("{} bytes, expected {}", bytes.size(), h.file_size());
    return r;
  }
  if (checksum(bytes) != h.checksum) {
    r.problem = "checksum mismatch";
    return r;
  }
  // Only a file copied or renamed by hand can get here, but it would
  // otherwise be a wrong kernel served silently.
  if (expect_key && h.key != *expect_key) {
    r.problem = fmt::format("holds key {}", h.key.hex());
    return r;
  }
  Entry e;
  std::size_t at = kHeaderSize;
  auto take = [&](std::uint64_t n) {
    std::string s(bytes.substr(at, static_cast<std::size_t>(n)));
    at += static_cast<std::size_t>(n);
    return s;
  };
  e.target = take(h.target_len);
  e.cubin = take(h.cubin_len);
  e.ptx = take(h.ptx_len);
  e.source = take(h.source_len);
  if (!expect_target.empty() && e.target != expect_target) {
    r.problem = fmt::format("target {}, expected {}", e.target, expect_target);
    return r;
  }
  r.value = std::move(e);
  return r;
}

}  // namespace cujit::cache

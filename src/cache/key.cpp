#include "cache/key.hpp"

#define XXH_INLINE_ALL
#include <xxhash.h>

namespace cujit::cache {
namespace {

// Little-endian whatever the host.
void put_u64(std::string& out, std::uint64_t v) {
  for (int k = 0; k < 8; ++k) out.push_back(static_cast<char>((v >> (8 * k)) & 0xff));
}

// A tag and a value in one append: byte-wise pushes were most of the time a
// CPU call on 10^3 elements spent on its program's key.
void tagged(std::string& out, char tag, std::uint64_t v) {
  char b[9] = {tag};
  for (int k = 0; k < 8; ++k) b[k + 1] = static_cast<char>((v >> (8 * k)) & 0xff);
  out.append(b, 9);
}

// Domain tags keep the two kinds of key apart even if a caller feeds
// KeyBuilder exactly what make_key hashes.
constexpr std::string_view kKernelDomain{"cujit.kernel\0", 13};
constexpr std::string_view kBytesDomain{"cujit.bytes\0", 12};

Key hash_with_domain(std::string_view domain, std::string_view body) {
  XXH3_state_t state;
  XXH3_128bits_reset(&state);
  XXH3_128bits_update(&state, domain.data(), domain.size());
  XXH3_128bits_update(&state, body.data(), body.size());
  XXH128_hash_t h = XXH3_128bits_digest(&state);
  return Key{h.high64, h.low64};
}

}  // namespace

std::string Key::hex() const {
  static constexpr char digits[] = "0123456789abcdef";
  std::string s(32, '0');
  for (int k = 0; k < 16; ++k) {
    s[15 - k] = digits[(hi >> (4 * k)) & 0xf];
    s[31 - k] = digits[(lo >> (4 * k)) & 0xf];
  }
  return s;
}

std::optional<Key> Key::from_hex(std::string_view s) {
  if (s.size() != 32) return std::nullopt;
  Key key;
  for (std::size_t k = 0; k < 32; ++k) {
    char c = s[k];
    std::uint64_t d;
    if (c >= '0' && c <= '9') d = static_cast<std::uint64_t>(c - '0');
    else if (c >= 'a' && c <= 'f') d = static_cast<std::uint64_t>(c - 'a' + 10);
    else return std::nullopt;  // upper case too: file names are always lower case
    std::uint64_t& half = k < 16 ? key.hi : key.lo;
    half = (half << 4) | d;
  }
  return key;
}

Key make_key(std::string_view source, std::string_view options, std::string_view target,
             int nvrtc_version) {
  std::string body;
  body.reserve(source.size() + options.size() + target.size() + 48);
  put_u64(body, kFormatVersion);
  put_u64(body, static_cast<std::uint64_t>(static_cast<std::int64_t>(nvrtc_version)));
  for (std::string_view part : {target, options, source}) {
    put_u64(body, part.size());
    body.append(part);
  }
  return hash_with_domain(kKernelDomain, body);
}

// Every part starts with a type tag and has a known length, so the encoding
// of a sequence of parts is unambiguous.
KeyBuilder& KeyBuilder::add(std::string_view bytes) {
  tagged(buf_, 's', bytes.size());
  buf_.append(bytes);
  return *this;
}

KeyBuilder& KeyBuilder::add(std::uint64_t value) {
  tagged(buf_, 'u', value);
  return *this;
}

Key KeyBuilder::finish() const { return hash_with_domain(kBytesDomain, buf_); }

Key hash_bytes(std::string_view bytes) { return KeyBuilder().add(bytes).finish(); }

}  // namespace cujit::cache

#include "cache/archive.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <set>
#include <sstream>

#define XXH_INLINE_ALL
#include <xxhash.h>

#include "cache/entry.hpp"
#include "core/fail.hpp"

namespace cujit::cache {
namespace {

constexpr char kMagic[8] = {'C', 'U', 'J', 'I', 'T', 'P', 'A', 'K'};
constexpr std::uint32_t kPackVersion = 1;
constexpr std::size_t kPackHeader = 32, kPackTrailer = 8;

void put_u32(std::string& out, std::uint32_t v) {
  for (int k = 0; k < 4; ++k) out.push_back(static_cast<char>((v >> (8 * k)) & 0xff));
}
void put_u64(std::string& out, std::uint64_t v) {
  for (int k = 0; k < 8; ++k) out.push_back(static_cast<char>((v >> (8 * k)) & 0xff));
}
std::uint64_t get_le(const char* p, int bytes) {
  std::uint64_t v = 0;
  for (int k = bytes - 1; k >= 0; --k) v = (v << 8) | static_cast<unsigned char>(p[k]);
  return v;
}

std::string nvrtc_text(std::uint64_t v) { return fmt::format("{}.{}", v / 1000, v % 1000 / 10); }

bool read_whole(const std::string& path, std::string& out) {
  std::ifstream f(path, std::ios::binary);
  if (!f) return false;
  std::ostringstream ss;
  ss << f.rdbuf();
  if (f.bad()) return false;
  out = ss.str();
  return true;
}

}  // namespace

ExportResult export_cache(const KernelCache& cache, const std::string& path, const std::vector<std::string>& targets,
                          int nvrtc_version) {
  ExportResult r;
  std::string body;
  for (const EntryInfo& info : cache.list()) {
    std::string bytes;
    if (!read_whole(info.path, bytes)) continue;  // removed meanwhile
    Decoded<Entry> d = decode_entry(bytes, info.key, {});
    if (!d.value) {
      r.skipped_bad++;
      std::fprintf(stderr, "jitcache: warning: leaving out the damaged entry %s: %s\n", info.path.c_str(), d.problem.c_str());
      continue;
    }
    if (!targets.empty() && std::find(targets.begin(), targets.end(), d.value->target) == targets.end()) continue;
    put_u64(body, bytes.size());
    body += bytes;
    r.entries++;
  }
  std::string out(kMagic, sizeof kMagic);
  put_u32(out, kPackVersion);
  put_u32(out, kFormatVersion);
  put_u32(out, static_cast<std::uint32_t>(nvrtc_version));
  put_u32(out, 0);
  put_u64(out, r.entries);
  out += body;
  put_u64(out, XXH3_64bits(out.data(), out.size()));
  r.bytes = out.size();

  std::string tmp = path + ".tmp.XXXXXX";
  int fd = ::mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0) fail(ErrorCode::Data, "{}: cannot write the export file: {}", path, std::strerror(errno));
  const char* p = out.data();
  std::size_t left = out.size();
  int err = 0;
  while (left > 0 && err == 0) {
    ssize_t n = ::write(fd, p, left);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) err = n < 0 ? errno : EIO;
    else p += n, left -= static_cast<std::size_t>(n);
  }
  if (err == 0 && ::fsync(fd) != 0) err = errno;
  if (::close(fd) != 0 && err == 0) err = errno;
  // mkostemp makes 0600; an export is meant to be copied around.
  if (err == 0) (void)::chmod(tmp.c_str(), 0644);
  if (err == 0 && ::rename(tmp.c_str(), path.c_str()) != 0) err = errno;
  if (err != 0) {
    ::unlink(tmp.c_str());
    fail(ErrorCode::Data, "{}: cannot write the export file: {}", path, std::strerror(err));
  }
  return r;
}

ImportResult import_cache(KernelCache& cache, const std::string& path, int nvrtc_version) {
  std::string data;
  if (!read_whole(path, data)) fail(ErrorCode::Data, "{}: cannot read: {}", path, std::strerror(errno));
  auto refuse = [&](const std::string& why) {
    fail(ErrorCode::Data, "{}: {}; nothing was imported", path, why);
  };
  if (data.size() < sizeof kMagic || std::memcmp(data.data(), kMagic, sizeof kMagic) != 0)
    refuse("not a cujit cache export (no CUJITPAK signature; make one with 'jitcache export FILE')");
  if (data.size() < kPackHeader + kPackTrailer)
    refuse(fmt::format("truncated ({} bytes, a header and checksum alone take {})", data.size(), kPackHeader + kPackTrailer));
  const std::uint64_t pack_version = get_le(&data[8], 4), entry_version = get_le(&data[12], 4),
                      nvrtc = get_le(&data[16], 4), count = get_le(&data[24], 8);
  if (pack_version != kPackVersion)
    refuse(fmt::format("export format version {}, this cujit reads version {}", pack_version, kPackVersion));
  const std::size_t body_end = data.size() - kPackTrailer;
  if (XXH3_64bits(data.data(), body_end) != get_le(&data[body_end], 8))
    refuse("checksum mismatch (the file is damaged or truncated)");
  if (entry_version != kFormatVersion)
    refuse(fmt::format("its entries have cache format {}, this cujit uses {}: they would never be looked up",
                       entry_version, kFormatVersion));
  if (nvrtc != static_cast<std::uint64_t>(nvrtc_version))
    refuse(fmt::format("its kernels were compiled by NVRTC {}, this cujit uses NVRTC {}: they would never be looked up "
                       "(export them where cujit uses NVRTC {})",
                       nvrtc_text(nvrtc), nvrtc_text(static_cast<std::uint64_t>(nvrtc_version)),
                       nvrtc_text(static_cast<std::uint64_t>(nvrtc_version))));
  // Every entry is checked before any is written.
  struct Item {
    Key key;
    std::string_view bytes;
  };
  std::vector<Item> items;
  std::set<std::string> keys;
  std::size_t at = kPackHeader;
  while (at < body_end) {
    if (body_end - at < 8) refuse(fmt::format("entry {} is cut off", items.size() + 1));
    std::uint64_t len = get_le(&data[at], 8);
    at += 8;
    if (len > body_end - at) refuse(fmt::format("entry {} claims {} bytes, {} are left", items.size() + 1, len, body_end - at));
    std::string_view bytes(&data[at], static_cast<std::size_t>(len));
    at += static_cast<std::size_t>(len);
    Decoded<Header> h = decode_header(bytes);
    Decoded<Entry> e = decode_entry(bytes, std::nullopt, {});
    if (!e.value) refuse(fmt::format("entry {} is damaged: {}", items.size() + 1, e.problem));
    const std::string& t = e.value->target;
    if (t.size() < 4 || t.compare(0, 3, "sm_") != 0 || t.find_first_not_of("0123456789", 3) != std::string::npos)
      refuse(fmt::format("entry {} has an invalid target '{}'", items.size() + 1, t));
    if (!keys.insert(h.value->key.hex()).second) refuse(fmt::format("entry {} repeats key {}", items.size() + 1, h.value->key.hex()));
    items.push_back(Item{h.value->key, bytes});
  }
  if (items.size() != count) refuse(fmt::format("it holds {} entries, its header says {}", items.size(), count));

  ImportResult r;
  for (const Item& it : items) {
    std::string have;
    if (read_whole(cache.entry_path(it.key), have) && have == it.bytes) {
      r.present++;
      continue;
    }
    int err = cache.store_encoded(it.key, it.bytes);
    if (err != 0)
      fail(ErrorCode::Data, "cannot write the kernel cache entry {}: {} ({} of {} entries imported)",
           cache.entry_path(it.key), std::strerror(err), r.added + r.present, items.size());
    r.added++;
  }
  return r;
}

}  // namespace cujit::cache

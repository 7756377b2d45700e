#include "io/npy.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <limits>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include "core/fail.hpp"

#if !defined(__BYTE_ORDER__) || __BYTE_ORDER__ != __ORDER_LITTLE_ENDIAN__
#error "npy.cpp assumes a little-endian host (NumPy's '<' is then the native order)"
#endif

namespace cujit {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr std::size_t kMagicLen = 6;
// A header for cujit's dtypes is under 300 bytes. NumPy itself refuses headers
// over 10000 characters; the cap keeps a hostile length field from making us
// allocate gigabytes before noticing the header is nonsense.
constexpr std::uint64_t kMaxHeaderLen = 1 << 20;
constexpr int kMaxNesting = 32;  // literal nesting depth the header parser follows

// ---------------------------------------------------------------------------
// dtypes <-> descr strings

// NumPy's descr for each DType, in DType order. '<' is little-endian, '|' "not
// applicable" (one byte).
constexpr const char* kDescr[kNumDTypes] = {
    "|b1", "|i1", "<i2", "<i4", "<i8", "|u1", "<u2", "<u4", "<u8",
    "<f2", "<V2", "<f4", "<f8", "<c8", "<c16",
};

constexpr const char* kSupported =
    "supported: b1 i1 i2 i4 i8 u1 u2 u4 u8 f2 f4 f8 c8 c16 in either byte order, and '<V2' for bfloat16";

// Text from the file for a message: control and non-ASCII bytes escaped, and
// cut short, since a hostile file could hold a megabyte of it.
std::string printable(std::string_view text) {
  constexpr std::size_t kMax = 40;
  std::string out;
  for (std::size_t k = 0; k < text.size() && k < kMax; ++k) {
    auto c = static_cast<unsigned char>(text[k]);
    if (c >= 0x20 && c < 0x7f) out.push_back(static_cast<char>(c));
    else out += fmt::format("\\x{:02x}", c);
  }
  if (text.size() > kMax) out += "...";
  return out;
}

struct DescrResult {
  DType dtype;
  bool swap;  // stored big-endian
};

[[noreturn]] void unsupported_descr(const std::string& name, std::string_view descr) {
  std::string_view bare = descr;
  if (!bare.empty() && (bare[0] == '<' || bare[0] == '>' || bare[0] == '|' || bare[0] == '=')) bare.remove_prefix(1);
  if (bare == "O")
    fail(ErrorCode::Data, "{}: object arrays (dtype '{}') are not supported; save a numeric array instead", name,
         descr);
  if (descr == "|V2" || descr == "V2")
    fail(ErrorCode::Data,
         "{}: unsupported dtype '{}' (raw 2-byte void); a bfloat16 array is stored as '<V2', as np.save "
         "writes ml_dtypes.bfloat16",
         name, descr);
  fail(ErrorCode::Data, "{}: unsupported dtype '{}' ({})", name, printable(descr), kSupported);
}

DescrResult parse_descr(const std::string& name, std::string_view descr) {
  std::string_view d = descr;
  char order = '|';
  if (!d.empty() && (d[0] == '<' || d[0] == '>' || d[0] == '|' || d[0] == '=')) {
    order = d[0];
    d.remove_prefix(1);
  }
  if (d.size() < 2 || d.size() > 3) unsupported_descr(name, descr);
  char kind = d[0];
  int size = 0;
  for (char c : d.substr(1)) {
    if (c < '0' || c > '9') unsupported_descr(name, descr);
    size = size * 10 + (c - '0');
  }
  std::optional<DType> t;
  switch (kind) {
    case 'b': if (size == 1) t = DType::Bool; break;
    case 'i':
      if (size == 1) t = DType::Int8; else if (size == 2) t = DType::Int16;
      else if (size == 4) t = DType::Int32; else if (size == 8) t = DType::Int64;
      break;
    case 'u':
      if (size == 1) t = DType::UInt8; else if (size == 2) t = DType::UInt16;
      else if (size == 4) t = DType::UInt32; else if (size == 8) t = DType::UInt64;
      break;
    case 'f':
      if (size == 2) t = DType::Float16; else if (size == 4) t = DType::Float32;
      else if (size == 8) t = DType::Float64;
      break;
    case 'c':
      if (size == 8) t = DType::Complex64; else if (size == 16) t = DType::Complex128;
      break;
    case 'V':
      // Only ml_dtypes' spelling; see npy.hpp.
      if (size == 2 && order == '<') t = DType::BFloat16;
      break;
    default: break;
  }
  if (!t) unsupported_descr(name, descr);
  return {*t, order == '>' && dtype_size(*t) > 1};
}

// ---------------------------------------------------------------------------
// The header: a Python dict literal, parsed by hand.

struct Value {
  enum Type { String, Bool, Int, Tuple, Other } type = Other;
  std::string text;           // String: the contents; Int: as written; Other: what it was
  bool boolean = false;
  std::int64_t integer = 0;
  bool negative = false;      // Int: had a minus sign
  bool overflow = false;      // Int: does not fit in int64
  std::vector<Value> items;   // Tuple
};

class HeaderParser {
 public:
  HeaderParser(std::string_view text, const std::string& name) : s_(text), name_(name) {}

  // Returns the (key, value) pairs in file order.
  std::vector<std::pair<std::string, Value>> parse_dict() {
    skip_ws();
    if (!eat('{')) syntax("expected '{'");
    std::vector<std::pair<std::string, Value>> out;
    for (;;) {
      skip_ws();
      if (eat('}')) break;
      if (peek() != '\'' && peek() != '"') syntax("expected a quoted key");
      std::string key = parse_string();
      skip_ws();
      if (!eat(':')) syntax("expected ':' after a key");
      skip_ws();
      out.emplace_back(std::move(key), parse_value(0));
      skip_ws();
      if (eat(',')) continue;
      if (eat('}')) break;
      syntax("expected ',' or '}'");
    }
    skip_ws();
    if (pos_ != s_.size()) syntax("unexpected text after the closing '}'");
    return out;
  }

 private:
  [[noreturn]] void syntax(const char* what) {
    if (pos_ >= s_.size())
      fail(ErrorCode::Data, "{}: header is not a valid Python dict literal ({} at the end of the header)", name_,
           what);
    fail(ErrorCode::Data, "{}: header is not a valid Python dict literal ({} at header byte {})", name_, what,
         pos_);
  }
  char peek() const { return pos_ < s_.size() ? s_[pos_] : '\0'; }
  bool eat(char c) {
    if (pos_ < s_.size() && s_[pos_] == c) { ++pos_; return true; }
    return false;
  }
  void skip_ws() {
    while (pos_ < s_.size() && (s_[pos_] == ' ' || s_[pos_] == '\t' || s_[pos_] == '\n' || s_[pos_] == '\r' ||
                                s_[pos_] == '\f' || s_[pos_] == '\v'))
      ++pos_;
  }
  static bool is_ident(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_';
  }

  std::string parse_string() {
    char quote = s_[pos_++];
    std::string out;
    for (;;) {
      if (pos_ >= s_.size() || s_[pos_] == '\n') syntax("unterminated string");
      char c = s_[pos_++];
      if (c == quote) return out;
      if (c == '\\') {
        // Escapes never occur in a descr cujit can read; keep the escaped
        // character so an unsupported descr is still quoted recognisably.
        if (pos_ >= s_.size()) syntax("unterminated string");
        c = s_[pos_++];
      }
      out.push_back(c);
    }
  }

  Value parse_int() {
    Value v;
    v.type = Value::Int;
    std::size_t start = pos_;
    if (peek() == '+' || peek() == '-') v.negative = s_[pos_++] == '-';
    if (!(peek() >= '0' && peek() <= '9')) syntax("expected a value");
    std::uint64_t mag = 0;
    while (pos_ < s_.size() && ((s_[pos_] >= '0' && s_[pos_] <= '9') || s_[pos_] == '_')) {
      char c = s_[pos_++];
      if (c == '_') continue;
      unsigned d = static_cast<unsigned>(c - '0');
      if (mag > (static_cast<std::uint64_t>(INT64_MAX) - d) / 10) v.overflow = true;
      else mag = mag * 10 + d;
    }
    // Python 2 wrote longs as "3L"; NumPy still reads such files.
    if (peek() == 'L' || peek() == 'l') ++pos_;
    if (pos_ < s_.size() && (is_ident(s_[pos_]) || s_[pos_] == '.')) {
      while (pos_ < s_.size() && (is_ident(s_[pos_]) || s_[pos_] == '.' || s_[pos_] == '+' || s_[pos_] == '-'))
        ++pos_;
      v.type = Value::Other;
      v.text = std::string(s_.substr(start, pos_ - start));
      return v;
    }
    v.integer = static_cast<std::int64_t>(mag);
    if (v.negative) v.integer = -v.integer;
    v.text = std::string(s_.substr(start, pos_ - start));
    return v;
  }

  Value parse_value(int depth) {
    if (depth > kMaxNesting) syntax("values nested too deeply");
    Value v;
    char c = peek();
    if (c == '\'' || c == '"') {
      v.type = Value::String;
      v.text = parse_string();
    } else if (c == '(') {
      ++pos_;
      bool comma = false;
      for (;;) {
        skip_ws();
        if (eat(')')) break;
        v.items.push_back(parse_value(depth + 1));
        skip_ws();
        if (eat(',')) { comma = true; continue; }
        if (eat(')')) break;
        syntax("expected ',' or ')'");
      }
      // "(5)" is the integer 5 in Python, not a tuple.
      if (v.items.size() == 1 && !comma) return std::move(v.items[0]);
      v.type = Value::Tuple;
    } else if (c == '[' || c == '{') {
      // Lists (structured descrs) and dicts are valid literals that cujit has
      // no use for: skip them whole so the error can say what they were.
      char close = c == '[' ? ']' : '}';
      v.text = c == '[' ? "a list" : "a dict";
      ++pos_;
      for (;;) {
        skip_ws();
        if (eat(close)) break;
        if (c == '{') {
          parse_value(depth + 1);
          skip_ws();
          if (!eat(':')) syntax("expected ':' after a key");
          skip_ws();
        }
        parse_value(depth + 1);
        skip_ws();
        if (eat(',')) continue;
        if (eat(close)) break;
        syntax(c == '[' ? "expected ',' or ']'" : "expected ',' or '}'");
      }
    } else if ((c >= '0' && c <= '9') || c == '-' || c == '+') {
      v = parse_int();
    } else if (is_ident(c)) {
      std::size_t start = pos_;
      while (pos_ < s_.size() && is_ident(s_[pos_])) ++pos_;
      std::string_view word = s_.substr(start, pos_ - start);
      if (word == "True" || word == "False") {
        v.type = Value::Bool;
        v.boolean = word == "True";
      } else if (word == "None") {
        v.text = "None";
      } else {
        syntax("expected a value");
      }
    } else {
      syntax("expected a value");
    }
    return v;
  }

  std::string_view s_;
  const std::string& name_;
  std::size_t pos_ = 0;
};

std::string shape_str(const std::vector<Value>& dims) {
  std::string s = "(";
  for (std::size_t k = 0; k < dims.size(); ++k) {
    if (k) s += ", ";
    s += printable(dims[k].text);
  }
  if (dims.size() == 1) s += ",";
  return s + ")";
}

std::string shape_str(const Shape& shape) {
  std::string s = "(";
  for (int k = 0; k < shape.ndim; ++k) {
    if (k) s += ", ";
    s += std::to_string(shape[k]);
  }
  if (shape.ndim == 1) s += ",";
  return s + ")";
}

struct Header {
  DType dtype = DType::Float64;
  bool swap = false;
  bool fortran = false;
  Shape shape;
  std::uint64_t nbytes = 0;  // of the data that follows
};

// Versions 1 and 2 have a latin-1 header, 3 a utf-8 one: either way the dict's
// structure is ASCII and any other byte can only sit inside a string literal.
Header parse_header(std::string_view text, const std::string& name) {
  auto entries = HeaderParser(text, name).parse_dict();
  const Value* descr = nullptr;
  const Value* fortran = nullptr;
  const Value* shape = nullptr;
  for (const auto& [key, value] : entries) {
    const Value** slot = key == "descr" ? &descr : key == "fortran_order" ? &fortran : key == "shape" ? &shape
                                                                                                       : nullptr;
    if (!slot)
      fail(ErrorCode::Data, "{}: header has an unexpected key '{}' (a .npy header has exactly 'descr', "
           "'fortran_order' and 'shape')", name, printable(key));
    if (*slot) fail(ErrorCode::Data, "{}: header has the key '{}' twice", name, key);
    *slot = &value;
  }
  for (auto [key, value] : {std::pair{"descr", descr}, {"fortran_order", fortran}, {"shape", shape}})
    if (!value) fail(ErrorCode::Data, "{}: header has no '{}' key", name, key);

  Header h;
  if (descr->type == Value::Other && descr->text == "a list")
    fail(ErrorCode::Data, "{}: structured dtypes (a list as 'descr') are not supported", name);
  if (descr->type != Value::String) fail(ErrorCode::Data, "{}: 'descr' is not a dtype string", name);
  auto d = parse_descr(name, descr->text);
  h.dtype = d.dtype;
  h.swap = d.swap;

  if (fortran->type != Value::Bool) fail(ErrorCode::Data, "{}: 'fortran_order' is not True or False", name);
  h.fortran = fortran->boolean;

  if (shape->type != Value::Tuple)
    fail(ErrorCode::Data, "{}: 'shape' is not a tuple of non-negative integers", name);
  for (const auto& dim : shape->items)
    if (dim.type != Value::Int || dim.negative)
      fail(ErrorCode::Data, "{}: 'shape' is not a tuple of non-negative integers", name);
  if (shape->items.size() > static_cast<std::size_t>(kMaxDims))
    fail(ErrorCode::Data, "{}: the array has {} dimensions; cujit supports at most {}", name, shape->items.size(),
         kMaxDims);
  // As in NumPy, the extents other than 0 must multiply to a byte count that
  // fits in int64 even when the array is empty: the rest of cujit multiplies
  // extents freely.
  std::uint64_t bytes = dtype_size(h.dtype);
  bool empty = false;
  h.shape.ndim = static_cast<int>(shape->items.size());
  for (int k = 0; k < h.shape.ndim; ++k) {
    const Value& dim = shape->items[k];
    auto extent = static_cast<std::uint64_t>(dim.integer);
    if (dim.overflow || (extent > 0 && bytes > static_cast<std::uint64_t>(INT64_MAX) / extent))
      fail(ErrorCode::Data, "{}: shape {} is too large (over 2^63 bytes)", name, shape_str(shape->items));
    h.shape[k] = dim.integer;
    if (extent > 0) bytes *= extent;
    else empty = true;
  }
  h.nbytes = empty ? 0 : bytes;
  return h;
}

// Where the header text lies, from the fixed-size preamble.
struct Preamble {
  int major = 0;
  std::size_t header_start = 0;
  std::size_t header_len = 0;
};

std::uint64_t read_le(const unsigned char* p, int n) {
  std::uint64_t v = 0;
  for (int k = n - 1; k >= 0; --k) v = (v << 8) | p[k];
  return v;
}

// `head` is the first bytes of the file (at least 12 when the file has them).
Preamble parse_preamble(std::string_view head, std::uint64_t file_size, const std::string& name) {
  if (head.size() < kMagicLen || std::memcmp(head.data(), kMagic, kMagicLen) != 0)
    fail(ErrorCode::Data, "{}: not a .npy file (bad magic)", name);
  if (head.size() < 8)
    fail(ErrorCode::Data, "{}: truncated header (the file has {} bytes, the header needs at least 10)", name,
         file_size);
  auto u = reinterpret_cast<const unsigned char*>(head.data());
  Preamble p;
  p.major = u[6];
  if ((p.major != 1 && p.major != 2 && p.major != 3) || u[7] != 0)
    fail(ErrorCode::Data, "{}: unsupported .npy format version {}.{} (cujit reads 1.0, 2.0 and 3.0)", name, u[6],
         u[7]);
  int len_bytes = p.major == 1 ? 2 : 4;
  p.header_start = 8 + static_cast<std::size_t>(len_bytes);
  if (head.size() < p.header_start)
    fail(ErrorCode::Data, "{}: truncated header (the file has {} bytes, the header needs at least {})", name,
         file_size, p.header_start);
  std::uint64_t len = read_le(u + 8, len_bytes);
  if (p.header_start + len > file_size)
    fail(ErrorCode::Data, "{}: truncated header (the file has {} bytes, the header needs {})", name, file_size,
         p.header_start + len);
  if (len > kMaxHeaderLen)
    fail(ErrorCode::Data, "{}: header of {} bytes is implausibly long (over {} bytes)", name, len, kMaxHeaderLen);
  p.header_len = static_cast<std::size_t>(len);
  return p;
}

[[noreturn]] void short_data(const std::string& name, const Header& h, std::uint64_t have) {
  fail(ErrorCode::Data, "{}: data is truncated: shape {} of {} needs {} bytes, the file has {} after the header",
       name, shape_str(h.shape), dtype_name(h.dtype), h.nbytes, have);
}

// ---------------------------------------------------------------------------
// Moving elements around

// Calls row(ptr, count, stride) for each run of the last axis of a strided
// array, in C order.
template <class F>
void for_each_row(const char* base, const Shape& shape, const Shape& strides, F row) {
  if (shape.size() == 0) return;
  if (shape.ndim == 0) return row(base, std::int64_t{1}, std::int64_t{0});
  std::array<std::int64_t, kMaxDims> idx{};
  const int last = shape.ndim - 1;
  for (;;) {
    row(base, shape[last], strides[last]);
    int k = last - 1;
    for (; k >= 0; --k) {
      base += strides[k];
      if (++idx[k] < shape[k]) break;
      base -= strides[k] * shape[k];
      idx[k] = 0;
    }
    if (k < 0) return;
  }
}

// Copies the elements of a strided array into dst in C order.
void gather_c_order(const char* src, const Shape& shape, const Shape& strides, std::size_t itemsize, char* dst) {
  for_each_row(src, shape, strides, [&](const char* p, std::int64_t n, std::int64_t step) {
    for (std::int64_t j = 0; j < n; ++j, p += step, dst += itemsize) std::memcpy(dst, p, itemsize);
  });
}

void byteswap_in_place(char* data, std::int64_t n, DType t) {
  // A complex number is two floats, each stored in the file's byte order.
  std::size_t part = is_complex(t) ? dtype_size(t) / 2 : dtype_size(t);
  if (part == 1) return;
  std::size_t count = static_cast<std::size_t>(n) * dtype_size(t) / part;
  for (std::size_t i = 0; i < count; ++i) {
    char* p = data + i * part;
    for (std::size_t a = 0, b = part - 1; a < b; ++a, --b) std::swap(p[a], p[b]);
  }
}

// Turns the raw file bytes of the data into the array `h` describes.
HostArray decode(const Header& h, const char* data) {
  HostArray out(h.dtype, h.shape);
  if (h.fortran && h.shape.ndim > 1 && h.nbytes > 0) {
    Shape f;  // Fortran-order strides: the first axis varies fastest
    f.ndim = h.shape.ndim;
    std::int64_t acc = static_cast<std::int64_t>(dtype_size(h.dtype));
    for (int k = 0; k < h.shape.ndim; ++k) {
      f[k] = acc;
      acc *= h.shape[k];
    }
    gather_c_order(data, h.shape, f, dtype_size(h.dtype), static_cast<char*>(out.data()));
  } else if (h.nbytes) {
    std::memcpy(out.data(), data, h.nbytes);
  }
  if (h.swap) byteswap_in_place(static_cast<char*>(out.data()), out.size(), h.dtype);
  return out;
}

// ---------------------------------------------------------------------------
// Files

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};

[[noreturn]] void io_error(const std::string& path, const char* what, int err) {
  fail(ErrorCode::Data, "{}: {}: {}", path, what, std::strerror(err));
}

// np.save's header: keys sorted, repr() values, 21 - len(first extent) spare
// spaces so the array can grow in place, then space padding and a newline to
// a multiple of 64 bytes.
std::string make_header(const ArrayView& a) {
  std::string dict = fmt::format("{{'descr': '{}', 'fortran_order': False, 'shape': {}, }}",
                                 kDescr[static_cast<int>(a.dtype)], shape_str(a.shape));
  if (a.shape.ndim > 0) dict.append(21 - std::to_string(a.shape[0]).size(), ' ');
  std::size_t hlen = dict.size() + 1;  // with the newline
  // Version 1.0 unless its 16-bit length field cannot hold the header.
  int major = 1;
  std::size_t prefix = 10;
  std::size_t pad = 64 - (prefix + hlen) % 64;
  if (hlen + pad > 0xffff) {
    major = 2;
    prefix = 12;
    pad = 64 - (prefix + hlen) % 64;
  }
  std::size_t total = hlen + pad;
  std::string out(kMagic, kMagicLen);
  out.push_back(static_cast<char>(major));
  out.push_back('\0');
  for (std::size_t k = 0; k < prefix - 8; ++k) out.push_back(static_cast<char>((total >> (8 * k)) & 0xff));
  out += dict;
  out.append(pad, ' ');
  out.push_back('\n');
  return out;
}

bool write_all(int fd, const char* p, std::size_t n) {
  while (n > 0) {
    ssize_t w = ::write(fd, p, n);
    if (w < 0) {
      if (errno == EINTR) continue;
      return false;
    }
    p += w;
    n -= static_cast<std::size_t>(w);
  }
  return true;
}

// Writes the elements of `a` in C order, through a bounded buffer when the
// view is not contiguous.
bool write_data(int fd, const ArrayView& a) {
  const std::size_t item = a.itemsize();
  if (a.is_c_contiguous())
    return write_all(fd, static_cast<const char*>(a.data), static_cast<std::size_t>(a.size()) * item);
  std::vector<char> buf(std::size_t{1} << 20);
  std::size_t used = 0;
  bool ok = true;
  for_each_row(static_cast<const char*>(a.data), a.shape, a.strides,
               [&](const char* p, std::int64_t n, std::int64_t step) {
                 for (std::int64_t j = 0; j < n && ok; ++j, p += step) {
                   if (used + item > buf.size()) {
                     ok = write_all(fd, buf.data(), used);
                     used = 0;
                   }
                   std::memcpy(buf.data() + used, p, item);
                   used += item;
                 }
               });
  return ok && write_all(fd, buf.data(), used);
}

const char* file_kind(mode_t m) {
  if (S_ISDIR(m)) return "a directory";
  if (S_ISFIFO(m)) return "a FIFO";
  if (S_ISCHR(m)) return "a character device";
  if (S_ISBLK(m)) return "a block device";
  if (S_ISSOCK(m)) return "a socket";
  return "not a regular file";
}

// Writes what `body` writes into a temporary file in the target's directory,
// then renames it over `path`: a failed write never leaves a partial file.
// Only a regular file (or nothing) may be at the path, through symbolic links:
// a device, FIFO or directory there is refused and left as it is, since
// renaming over it would turn /dev/null into a file or leave a FIFO's reader
// waiting forever.
template <class Body>
void write_file_with(const std::string& path, Body body) {
  // np.save writes through a symbolic link and keeps an existing file's
  // permissions; replacing the file by rename() must do the same by hand.
  std::string target = path;
  struct stat st;
  if (::lstat(path.c_str(), &st) == 0 && S_ISLNK(st.st_mode)) {
    std::unique_ptr<char, decltype(&std::free)> real(::realpath(path.c_str(), nullptr), &std::free);
    if (real) target = real.get();
  }
  bool exists = ::stat(target.c_str(), &st) == 0;
  if (exists && !S_ISREG(st.st_mode))
    fail(ErrorCode::Data, "{}: cannot write an output over {}; outputs are written to regular files only (it was "
         "left as it is)", path, file_kind(st.st_mode));
  bool keep_mode = exists;

  // A short unique name in the target's directory keeps rename() within one
  // filesystem and atomic.
  static std::atomic<unsigned> counter{0};
  std::size_t slash = target.rfind('/');
  std::string dir = slash == std::string::npos ? "" : target.substr(0, slash + 1);
  std::string tmp;
  int fd = -1;
  for (int attempt = 0; attempt < 100 && fd < 0; ++attempt) {
    tmp = fmt::format("{}.npy-{}-{}.tmp", dir, ::getpid(), counter++);
    fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC | O_NOFOLLOW, 0666);
    if (fd < 0 && errno != EEXIST) io_error(path, "cannot write", errno);
  }
  if (fd < 0) io_error(path, "cannot write", EEXIST);

  bool ok = false;
  try {
    ok = (!keep_mode || ::fchmod(fd, st.st_mode & 07777) == 0) && body(fd) && ::fsync(fd) == 0;
  } catch (...) {  // a GPU's copy failed (write_npy_with's body): no partial file either
    ::close(fd);
    ::unlink(tmp.c_str());
    throw;
  }
  int err = ok ? 0 : errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (ok && std::rename(tmp.c_str(), target.c_str()) != 0) {
    ok = false;
    err = errno;
  }
  if (!ok) {
    ::unlink(tmp.c_str());
    io_error(path, "cannot write", err);
  }
}

}  // namespace

HostArray parse_npy(std::string_view bytes, const std::string& name) {
  Preamble p = parse_preamble(bytes.substr(0, 12), bytes.size(), name);
  Header h = parse_header(bytes.substr(p.header_start, p.header_len), name);
  std::size_t data_start = p.header_start + p.header_len;
  std::uint64_t have = bytes.size() - data_start;
  // Extra bytes after the data are ignored, as np.load does.
  if (have < h.nbytes) short_data(name, h, have);
  return decode(h, bytes.data() + data_start);
}

namespace {


// Standard input (a pipe, a terminal, a file) has no size to check lengths
// against up front: read the preamble and the header (bounded by
// kMaxHeaderLen), then only the data bytes the header announces, in chunks,
// so memory grows only as data actually arrives.
HostArray read_stream(std::FILE* f, const std::string& name) {
  std::string all;
  bool eof = false;
  auto read_upto = [&](std::uint64_t want) {
    char chunk[1 << 16];
    while (!eof && all.size() < want) {
      std::size_t n = static_cast<std::size_t>(std::min<std::uint64_t>(sizeof chunk, want - all.size()));
      std::size_t got = std::fread(chunk, 1, n, f);
      all.append(chunk, got);
      if (got < n) {
        if (std::ferror(f)) io_error(name, "cannot read", errno);
        eof = true;
      }
    }
  };
  read_upto(12);
  const std::uint64_t unknown = std::numeric_limits<std::uint64_t>::max();
  Preamble p = parse_preamble(all, eof ? all.size() : unknown, name);
  read_upto(p.header_start + p.header_len);
  if (all.size() < p.header_start + p.header_len)
    fail(ErrorCode::Data, "{}: truncated header (the file has {} bytes, the header needs {})", name, all.size(),
         p.header_start + p.header_len);
  Header h = parse_header(std::string_view(all).substr(p.header_start, p.header_len), name);
  try {
    read_upto(p.header_start + p.header_len + h.nbytes);
  } catch (const std::bad_alloc&) {
    fail(ErrorCode::Data, "{}: out of host memory reading the {} bytes of data the header announces", name, h.nbytes);
  }
  return parse_npy(all, name);
}

}  // namespace

bool is_standard_input(const std::string& path) { return path == "-" || path == "/dev/stdin"; }

namespace {

// A regular file opened for reading, its header read and checked, and the
// data's place and length checked against the file's size.
struct OpenedNpy {
  std::unique_ptr<std::FILE, FileCloser> f;
  Header h;
  std::uint64_t data_start = 0;
  struct stat st {};
};

OpenedNpy open_npy(const std::string& path) {
  // O_NONBLOCK: opening a FIFO with no writer must not wait; it is refused below anyway.
  int fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY | O_NONBLOCK);
  if (fd < 0) io_error(path, "cannot open", errno);
  struct stat st;
  if (::fstat(fd, &st) != 0) {
    int err = errno;
    ::close(fd);
    io_error(path, "cannot read", err);
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    // A device or FIFO has no size to bound the read by (/dev/zero never ends,
    // /dev/urandom never either): only regular files, and standard input.
    fail(ErrorCode::Data, "{}: cannot read a .npy file from {}; give a regular file, or '-' for standard input", path,
         file_kind(st.st_mode));
  }
  OpenedNpy o;
  o.st = st;
  o.f.reset(::fdopen(fd, "rb"));
  if (!o.f) {
    int err = errno;
    ::close(fd);
    io_error(path, "cannot read", err);
  }
  const auto file_size = static_cast<std::uint64_t>(st.st_size);

  // Lengths are checked against the file size before anything is allocated,
  // so a hostile header cannot ask for more memory than the file holds.
  std::string head(12, '\0');
  head.resize(std::fread(head.data(), 1, head.size(), o.f.get()));
  Preamble p = parse_preamble(head, file_size, path);
  std::string text = head.substr(std::min(p.header_start, head.size()));
  text.resize(p.header_len);
  std::size_t have_text = std::min(p.header_len, head.size() - std::min(p.header_start, head.size()));
  std::size_t want = p.header_len - have_text;
  if (want && std::fread(text.data() + have_text, 1, want, o.f.get()) != want)
    io_error(path, "cannot read", std::ferror(o.f.get()) ? errno : EIO);
  o.h = parse_header(text, path);
  o.data_start = p.header_start + p.header_len;
  std::uint64_t have = file_size - o.data_start;
  if (have < o.h.nbytes) short_data(path, o.h, have);
  return o;
}

}  // namespace

NpyFile read_npy_header(const std::string& path) {
  if (path.empty()) fail(ErrorCode::Data, "cannot read a .npy file: the file name is empty");
  const OpenedNpy o = open_npy(path);
  NpyFile info;
  info.dtype = o.h.dtype;
  info.shape = o.h.shape;
  // One dimension or none is the same bytes in either order.
  info.fortran = o.h.fortran && o.h.shape.ndim > 1;
  info.swap = o.h.swap;
  info.data_offset = o.data_start;
  info.nbytes = o.h.nbytes;
  info.file_device = static_cast<std::uint64_t>(o.st.st_dev);
  info.file_inode = static_cast<std::uint64_t>(o.st.st_ino);
  info.file_size = static_cast<std::uint64_t>(o.st.st_size);
  return info;
}

HostArray read_npy(const std::string& path) {
  if (path.empty()) fail(ErrorCode::Data, "cannot read a .npy file: the file name is empty");
  if (is_standard_input(path)) {
    struct stat st;
    if (::fstat(0, &st) == 0 && S_ISDIR(st.st_mode))
      fail(ErrorCode::Data, "standard input: cannot read a .npy file from a directory");
    std::clearerr(stdin);
    return read_stream(stdin, "standard input");
  }
  OpenedNpy o = open_npy(path);
  const Header& h = o.h;
  std::vector<char> raw;
  HostArray out;
  char* dst;
  // An empty array has no element to reorder, in either order.
  if (h.fortran && h.shape.ndim > 1 && h.nbytes > 0) {
    raw.resize(h.nbytes);
    dst = raw.data();
  } else {
    out = HostArray(h.dtype, h.shape);
    dst = static_cast<char*>(out.data());
  }
  std::size_t n = static_cast<std::size_t>(h.nbytes);
  if (n && std::fread(dst, 1, n, o.f.get()) != n) io_error(path, "cannot read", std::ferror(o.f.get()) ? errno : EIO);
  if (!raw.empty()) return decode(h, raw.data());
  if (h.swap) byteswap_in_place(dst, out.size(), h.dtype);
  return out;
}

namespace {

// What any .npy writer refuses, named after `path`.
void check_writable(const std::string& path, const ArrayView& a) {
  if (a.device.kind != Device::CPU)
    fail(ErrorCode::Data, "{}: cannot write an array on a CUDA device; copy it to the host first", path);
  if (a.shape.ndim < 0 || a.shape.ndim > kMaxDims)
    fail(ErrorCode::Data, "{}: cannot write an array of {} dimensions", path, a.shape.ndim);
  for (int k = 0; k < a.shape.ndim; ++k)
    if (a.shape[k] < 0) fail(ErrorCode::Data, "{}: cannot write an array of shape with negative extent {}", path,
                             a.shape[k]);
  if (a.size() > 0 && !a.data) fail(ErrorCode::Data, "{}: cannot write an array with no data pointer", path);
}

}  // namespace

void write_npy(const std::string& path, const ArrayView& a) {
  if (path.empty()) fail(ErrorCode::Data, "cannot write a .npy file: the file name is empty");
  check_writable(path, a);
  std::string header = make_header(a);
  write_file_with(path, [&](int fd) { return write_all(fd, header.data(), header.size()) && write_data(fd, a); });
}

void write_npy_with(const std::string& path, DType dtype, const Shape& shape,
                    const std::function<bool(int fd, std::size_t data_offset)>& data) {
  if (path.empty()) fail(ErrorCode::Data, "cannot write a .npy file: the file name is empty");
  // The checks and the header look at the dtype and shape only; the data comes from `data`.
  static char stands_for_data;
  const ArrayView a = ArrayView::host(&stands_for_data, dtype, shape);
  check_writable(path, a);
  const std::string header = make_header(a);
  write_file_with(path, [&](int fd) { return write_all(fd, header.data(), header.size()) && data(fd, header.size()); });
}

void write_file(const std::string& path, std::string_view bytes) {
  if (path.empty()) fail(ErrorCode::Data, "cannot write a file: the file name is empty");
  write_file_with(path, [&](int fd) { return write_all(fd, bytes.data(), bytes.size()); });
}

void write_npy(int fd, const ArrayView& a, const std::string& name_for_errors) {
  check_writable(name_for_errors, a);
  std::string header = make_header(a);
  if (!write_all(fd, header.data(), header.size()) || !write_data(fd, a)) io_error(name_for_errors, "cannot write", errno);
}

}  // namespace cujit

#include "reference.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <limits>
#include <sstream>
#include <stdexcept>

#include "core/half.hpp"

namespace cujit::ref {
namespace {

[[noreturn]] void bad(const std::string& path, int line, const std::string& msg) {
  throw std::runtime_error(path + ":" + std::to_string(line) + ": " + msg);
}

std::vector<std::string> split_ws(std::string_view s) {
  std::vector<std::string> out;
  std::size_t k = 0;
  while (k < s.size()) {
    while (k < s.size() && (s[k] == ' ' || s[k] == '\t' || s[k] == '\r')) ++k;
    std::size_t b = k;
    while (k < s.size() && s[k] != ' ' && s[k] != '\t' && s[k] != '\r') ++k;
    if (k > b) out.emplace_back(s.substr(b, k - b));
  }
  return out;
}

// The rest of a line after its first word and one space.
std::string rest_of(const std::string& line) {
  auto sp = line.find(' ');
  if (sp == std::string::npos) return {};
  std::string r = line.substr(sp + 1);
  while (!r.empty() && (r.back() == '\r')) r.pop_back();
  return r;
}

std::string unescape_program(const std::string& s) {
  std::string out;
  for (std::size_t k = 0; k < s.size(); ++k) {
    if (s[k] == '\\' && k + 1 < s.size()) {
      if (s[k + 1] == 'n') { out += '\n'; ++k; continue; }
      if (s[k + 1] == '\\') { out += '\\'; ++k; continue; }
    }
    out += s[k];
  }
  return out;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

bool host_is_little_endian() {
  const std::uint16_t one = 1;
  unsigned char b;
  std::memcpy(&b, &one, 1);
  return b == 1;
}

// Fills an array from tokens[first..]: one hex token of 2*itemsize digits per element (little-endian bytes).
HostArray parse_array(const std::string& path, int line, DType t, const std::string& shape_tok,
                      const std::vector<std::string>& tokens, std::size_t first) {
  Shape shape;
  try {
    shape = parse_shape(shape_tok);
  } catch (const std::exception& e) {
    bad(path, line, e.what());
  }
  HostArray a(t, shape);
  const std::size_t isz = dtype_size(t);
  const std::int64_t n = shape.size();
  if (static_cast<std::int64_t>(tokens.size() - first) != n)
    bad(path, line, "expected " + std::to_string(n) + " values, found " + std::to_string(tokens.size() - first));
  auto* dst = static_cast<unsigned char*>(a.data());
  for (std::int64_t e = 0; e < n; ++e) {
    const std::string& h = tokens[first + static_cast<std::size_t>(e)];
    if (h.size() != 2 * isz) bad(path, line, "value '" + h + "' is not " + std::to_string(isz) + " bytes of hex");
    for (std::size_t b = 0; b < isz; ++b) {
      int hi = hex_digit(h[2 * b]), lo = hex_digit(h[2 * b + 1]);
      if (hi < 0 || lo < 0) bad(path, line, "bad hex value '" + h + "'");
      // The file holds little-endian bytes; a complex is two reals, each little-endian.
      dst[e * isz + b] = static_cast<unsigned char>(hi * 16 + lo);
    }
  }
  return a;
}

DType parse_dtype(const std::string& path, int line, const std::string& s) {
  auto t = dtype_from_name(s);
  if (!t) bad(path, line, "unknown dtype '" + s + "'");
  return *t;
}

// ---- floating formats ----------------------------------------------------------------------

struct Fmt {
  unsigned size;       // bytes of one real
  std::uint64_t sign;  // sign bit
  std::uint64_t expo;  // exponent mask
  std::uint64_t mant;  // mantissa mask
};

Fmt fmt_of(DType t) {
  switch (t) {
    case DType::Float16: return {2, 0x8000u, 0x7c00u, 0x03ffu};
    case DType::BFloat16: return {2, 0x8000u, 0x7f80u, 0x007fu};
    case DType::Float32:
    case DType::Complex64: return {4, 0x80000000u, 0x7f800000u, 0x007fffffu};
    default: return {8, 0x8000000000000000ull, 0x7ff0000000000000ull, 0x000fffffffffffffull};
  }
}

DType real_dtype(DType t) {
  if (t == DType::Complex64) return DType::Float32;
  if (t == DType::Complex128) return DType::Float64;
  return t;
}

std::uint64_t load_bits(const unsigned char* p, unsigned size) {
  std::uint64_t v = 0;
  for (unsigned b = 0; b < size; ++b) v |= static_cast<std::uint64_t>(p[b]) << (8 * b);
  return v;
}

bool bits_nan(std::uint64_t b, const Fmt& f) { return (b & f.expo) == f.expo && (b & f.mant) != 0; }
bool bits_inf(std::uint64_t b, const Fmt& f) { return (b & f.expo) == f.expo && (b & f.mant) == 0; }

long double bits_value(DType real, std::uint64_t b) {
  switch (real) {
    case DType::Float16: return half_to_float(static_cast<std::uint16_t>(b));
    case DType::BFloat16: return bfloat16_to_float(static_cast<std::uint16_t>(b));
    case DType::Float32: return f32_from_bits(static_cast<std::uint32_t>(b));
    default: {
      double d;
      std::memcpy(&d, &b, 8);
      return d;
    }
  }
}

// Spacing of representable values of `real` at magnitude m (m finite, >= 0).
long double ulp_at(DType real, long double m) {
  switch (real) {
    case DType::Float16:
    case DType::BFloat16: {
      const int mant_bits = real == DType::Float16 ? 10 : 7;
      const int emin = real == DType::Float16 ? -14 : -126;
      int e = m > 0 ? std::ilogb(static_cast<double>(m)) : emin;
      if (e < emin) e = emin;
      return std::ldexp(1.0L, e - mant_bits);
    }
    case DType::Float32: {
      float x = static_cast<float>(m);
      float up = std::nextafter(x, std::numeric_limits<float>::infinity());
      if (std::isinf(up)) return static_cast<long double>(x) - std::nextafter(x, 0.0f);
      return static_cast<long double>(up) - x;
    }
    default: {
      double x = static_cast<double>(m);
      double up = std::nextafter(x, std::numeric_limits<double>::infinity());
      if (std::isinf(up)) return static_cast<long double>(x) - std::nextafter(x, 0.0);
      return static_cast<long double>(up) - x;
    }
  }
}

std::string fmt_real(DType real, std::uint64_t b) {
  const Fmt f = fmt_of(real);
  char buf[96];
  long double v = bits_value(real, b);
  int digits = real == DType::Float64 ? 17 : real == DType::Float32 ? 9 : 5;
  if (bits_nan(b, f))
    std::snprintf(buf, sizeof buf, "%snan", (b & f.sign) ? "-" : "");
  else
    std::snprintf(buf, sizeof buf, "%.*Lg", digits, v);
  return buf;
}

std::string hex_of(std::uint64_t b, unsigned size) {
  char buf[24];
  std::snprintf(buf, sizeof buf, "%0*llx", static_cast<int>(2 * size), static_cast<unsigned long long>(b));
  return buf;
}

// One real part. Returns "" when it matches, else the reason.
std::string compare_real(DType real, std::uint64_t got, std::uint64_t want, long double tol, long double ulp_ref,
                         bool use_ref) {
  const Fmt f = fmt_of(real);
  if (bits_nan(want, f)) return bits_nan(got, f) ? "" : "want nan";
  if (bits_nan(got, f)) return "got nan";
  if (tol == 0) return got == want ? "" : "not bit-exact (tol=0)";
  if (bits_inf(want, f) || bits_inf(got, f)) return got == want ? "" : "infinity mismatch";
  if (!use_ref) {
    std::uint64_t d = ulp_distance(real, got, want);
    if (static_cast<long double>(d) <= tol) return "";
    char buf[96];
    std::snprintf(buf, sizeof buf, "%llu ulp > tol %.4Lg", static_cast<unsigned long long>(d), tol);
    return buf;
  }
  long double diff = std::fabs(bits_value(real, got) - bits_value(real, want));
  if (diff <= tol * ulp_ref) return "";
  char buf[96];
  std::snprintf(buf, sizeof buf, "%.3Lg ulp of the reference magnitude > tol %.4Lg", diff / ulp_ref, tol);
  return buf;
}

}  // namespace

Shape parse_shape(std::string_view s) {
  Shape sh;
  if (s == "()") return sh;
  std::size_t k = 0;
  while (k <= s.size()) {
    std::size_t x = s.find('x', k);
    std::string_view part = s.substr(k, x == std::string_view::npos ? std::string_view::npos : x - k);
    if (part.empty() || part.find_first_not_of("0123456789") != std::string_view::npos)
      throw std::runtime_error("bad shape '" + std::string(s) + "'");
    if (sh.ndim == kMaxDims) throw std::runtime_error("too many dimensions in '" + std::string(s) + "'");
    sh[sh.ndim++] = std::stoll(std::string(part));
    if (x == std::string_view::npos) break;
    k = x + 1;
  }
  return sh;
}

std::string shape_to_string(const Shape& s) {
  if (s.ndim == 0) return "()";
  std::string r;
  for (int k = 0; k < s.ndim; ++k) {
    if (k) r += 'x';
    r += std::to_string(s[k]);
  }
  return r;
}

std::vector<RefCase> load_eval_cases(const std::string& path) {
  if (!host_is_little_endian()) throw std::runtime_error("the reference data is little-endian; this host is not");
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::vector<RefCase> cases;
  std::optional<RefCase> cur;
  std::string line;
  int ln = 0;
  while (std::getline(in, line)) {
    ++ln;
    if (line.empty() || line[0] == '#') continue;
    auto tok = split_ws(line);
    if (tok.empty()) continue;
    const std::string& kw = tok[0];
    if (kw == "case") {
      if (cur) bad(path, ln, "'case' inside case '" + cur->id + "' (missing 'end')");
      if (tok.size() != 2) bad(path, ln, "expected 'case <id>'");
      cur.emplace();
      cur->id = tok[1];
      cur->line = ln;
      continue;
    }
    if (!cur) bad(path, ln, "'" + kw + "' outside a case");
    if (kw == "program") {
      cur->program = unescape_program(rest_of(line));
    } else if (kw == "input" || kw == "weak") {
      if (tok.size() < 4) bad(path, ln, "expected '" + kw + " <name> <dtype> <shape> <values>...'");
      RefInput ri;
      ri.name = tok[1];
      ri.weak = kw == "weak";
      ri.array = parse_array(path, ln, parse_dtype(path, ln, tok[2]), tok[3], tok, 4);
      cur->inputs.push_back(std::move(ri));
    } else if (kw == "output") {
      if (tok.size() < 5 || tok[4].rfind("tol=", 0) != 0)
        bad(path, ln, "expected 'output <name> <dtype> <shape> tol=<n> <values>...'");
      RefOutput ro;
      ro.name = tok[1];
      ro.tol = std::stoi(tok[4].substr(4));
      ro.array = parse_array(path, ln, parse_dtype(path, ln, tok[2]), tok[3], tok, 5);
      cur->outputs.push_back(std::move(ro));
    } else if (kw == "outspec") {
      if (tok.size() != 3) bad(path, ln, "expected 'outspec <name> <dtype|auto>'");
      std::optional<DType> t;
      if (tok[2] != "auto") t = parse_dtype(path, ln, tok[2]);
      cur->outspecs.emplace_back(tok[1], t);
    } else if (kw == "error") {
      std::string e = rest_of(line);
      if (e.empty()) bad(path, ln, "expected 'error <first line>' or 'error *'");
      cur->error = e;
    } else if (kw == "end") {
      if (cur->program.empty()) bad(path, ln, "case '" + cur->id + "' has no program");
      if (!cur->error && cur->outputs.empty()) bad(path, ln, "case '" + cur->id + "' has neither outputs nor error");
      if (cur->error && !cur->outputs.empty()) bad(path, ln, "case '" + cur->id + "' has both outputs and error");
      cases.push_back(std::move(*cur));
      cur.reset();
    } else {
      bad(path, ln, "unknown keyword '" + kw + "'");
    }
  }
  if (cur) bad(path, ln, "file ends inside case '" + cur->id + "'");
  return cases;
}

PromotionTables load_promotion(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error("cannot open " + path);
  PromotionTables t{};
  std::string section, line;
  int ln = 0;
  bool seen[4][kNumDTypes] = {};
  while (std::getline(in, line)) {
    ++ln;
    if (line.empty() || line[0] == '#') continue;
    auto tok = split_ws(line);
    if (tok.empty()) continue;
    if (tok[0].front() == '[') {
      section = tok[0];
      continue;
    }
    if (tok[0] == "dtypes") {
      if (tok.size() != 1 + kNumDTypes) bad(path, ln, "expected 15 dtypes");
      for (int k = 0; k < kNumDTypes; ++k)
        if (parse_dtype(path, ln, tok[1 + k]) != static_cast<DType>(k)) bad(path, ln, "dtype order differs from cujit::DType");
      continue;
    }
    const int row = static_cast<int>(parse_dtype(path, ln, tok[0]));
    if (section == "[weak]") {
      if (tok.size() != 4) bad(path, ln, "expected '<dtype> <int> <float> <complex>'");
      for (int k = 0; k < 3; ++k) t.weak[row][k] = parse_dtype(path, ln, tok[1 + k]);
      seen[1][row] = true;
      continue;
    }
    if (tok.size() != 1 + kNumDTypes) bad(path, ln, "expected a dtype and 15 cells");
    for (int c = 0; c < kNumDTypes; ++c) {
      const std::string& cell = tok[1 + c];
      if (section == "[promote]") {
        t.promote[row][c] = parse_dtype(path, ln, cell);
      } else if (section == "[can_cast_safe]" || section == "[can_cast_same_kind]") {
        if (cell != "0" && cell != "1") bad(path, ln, "expected 0 or 1");
        (section == "[can_cast_safe]" ? t.safe : t.same_kind)[row][c] = cell == "1";
      } else {
        bad(path, ln, "row outside a known section");
      }
    }
    seen[section == "[promote]" ? 0 : section == "[can_cast_safe]" ? 2 : 3][row] = true;
  }
  for (auto& s : seen)
    for (bool b : s)
      if (!b) throw std::runtime_error(path + ": a table is missing rows");
  return t;
}

std::uint64_t ulp_distance(DType t, std::uint64_t a, std::uint64_t b) {
  const Fmt f = fmt_of(real_dtype(t));
  const std::uint64_t ma = a & ~f.sign & (f.sign | (f.sign - 1)), mb = b & ~f.sign & (f.sign | (f.sign - 1));
  const bool na = (a & f.sign) != 0, nb = (b & f.sign) != 0;
  if (na == nb) return ma > mb ? ma - mb : mb - ma;
  const std::uint64_t s = ma + mb;  // opposite signs: distance through zero
  return s < ma ? std::numeric_limits<std::uint64_t>::max() : s;
}

std::string format_value(DType t, const void* p) {
  const auto* b = static_cast<const unsigned char*>(p);
  switch (t) {
    case DType::Bool: return *b ? "true" : (b[0] == 0 ? "false" : "bool(" + std::to_string(b[0]) + ")");
    case DType::Int8: return std::to_string(static_cast<std::int8_t>(b[0]));
    case DType::Int16: return std::to_string(static_cast<std::int16_t>(load_bits(b, 2)));
    case DType::Int32: return std::to_string(static_cast<std::int32_t>(load_bits(b, 4)));
    case DType::Int64: return std::to_string(static_cast<std::int64_t>(load_bits(b, 8)));
    case DType::UInt8: return std::to_string(b[0]);
    case DType::UInt16: return std::to_string(load_bits(b, 2));
    case DType::UInt32: return std::to_string(load_bits(b, 4));
    case DType::UInt64: return std::to_string(load_bits(b, 8));
    case DType::Complex64:
    case DType::Complex128: {
      const DType r = real_dtype(t);
      const unsigned s = fmt_of(r).size;
      std::uint64_t re = load_bits(b, s), im = load_bits(b + s, s);
      return "(" + fmt_real(r, re) + ", " + fmt_real(r, im) + ") [" + hex_of(re, s) + " " + hex_of(im, s) + "]";
    }
    default: {
      const unsigned s = fmt_of(t).size;
      std::uint64_t v = load_bits(b, s);
      return fmt_real(t, v) + " [" + hex_of(v, s) + "]";
    }
  }
}

bool values_match(DType t, const void* got, const void* want, std::int64_t n, int tol, std::string* why) {
  return values_match(t, got, want, n, tol, why, nullptr);
}

bool values_match(DType t, const void* got, const void* want, std::int64_t n, int tol, std::string* why,
                  const ElementTol* per_element) {
  const auto* g = static_cast<const unsigned char*>(got);
  const auto* w = static_cast<const unsigned char*>(want);
  const std::size_t isz = dtype_size(t);
  int shown = 0, failed = 0;
  std::ostringstream msg;
  for (std::int64_t e = 0; e < n; ++e) {
    const unsigned char* ge = g + e * isz;
    const unsigned char* we = w + e * isz;
    std::string reason;
    long double scale = 1, floor = 0;
    if (per_element && tol > 0) {
      if (!per_element->scale.empty()) {
        const double s = per_element->scale[static_cast<std::size_t>(e)];
        if (std::isfinite(s) && s > 1) scale = s;
      }
      if (!per_element->floor.empty()) {
        const double f = per_element->floor[static_cast<std::size_t>(e)];
        if (std::isfinite(f) && f > 0) floor = f;
      }
    }
    const bool loosened = scale > 1 || floor > 0;
    if (!is_float(t) && !is_complex(t)) {
      if (t == DType::Bool ? ((ge[0] != 0) != (we[0] != 0) || ge[0] > 1) : std::memcmp(ge, we, isz) != 0)
        reason = "not bit-exact";
    } else if (is_float(t)) {
      const unsigned s = fmt_of(t).size;
      const std::uint64_t wb = load_bits(we, s);
      const Fmt f = fmt_of(t);
      if (!loosened || bits_nan(wb, f) || bits_inf(wb, f)) {
        reason = compare_real(t, load_bits(ge, s), wb, tol, 0, false);
      } else {
        const long double m = std::max(std::fabs(bits_value(t, wb)), floor);
        reason = compare_real(t, load_bits(ge, s), wb, tol * scale, ulp_at(t, m), true);
      }
    } else {
      const DType r = real_dtype(t);
      const Fmt f = fmt_of(r);
      const std::uint64_t gre = load_bits(ge, f.size), gim = load_bits(ge + f.size, f.size);
      const std::uint64_t wre = load_bits(we, f.size), wim = load_bits(we + f.size, f.size);
      // The larger finite magnitude of the expected pair sets the ulp for both parts.
      long double m = -1;
      for (std::uint64_t p : {wre, wim})
        if (!bits_nan(p, f) && !bits_inf(p, f)) m = std::max(m, std::fabs(bits_value(r, p)));
      const bool use_ref = m >= 0;
      if (use_ref) m = std::max(m, floor);
      const long double u = use_ref ? ulp_at(r, m) : 0;
      if (scale > 1 && (bits_inf(wre, f) || bits_inf(wim, f))) {
        if (bits_nan(gre, f) != bits_nan(wre, f) || bits_nan(gim, f) != bits_nan(wim, f))
          reason = "NaN parts differ (an overflowed, ill-conditioned value)";
      } else {
        std::string a = compare_real(r, gre, wre, tol * scale, u, use_ref);
        std::string b = compare_real(r, gim, wim, tol * scale, u, use_ref);
        if (!a.empty()) reason = "real part: " + a;
        if (!b.empty()) reason += (reason.empty() ? "" : "; ") + ("imaginary part: " + b);
      }
    }
    if (!reason.empty()) {
      ++failed;
      if (shown < 8) {
        msg << "\n  element " << e << " of " << n << ": got " << format_value(t, ge) << ", want "
            << format_value(t, we) << " (" << reason << ")";
        ++shown;
      }
    }
  }
  if (failed && why) {
    std::ostringstream head;
    head << failed << " of " << n << " " << dtype_name(t) << " elements differ (tol=" << tol
         << (per_element ? ", loosened per element" : "") << ")";
    if (failed > shown) msg << "\n  ... " << failed - shown << " more";
    *why = head.str() + msg.str();
  }
  return failed == 0;
}

}  // namespace cujit::ref

// A port of NumPy's printing (numpy/_core/arrayprint.py and the Dragon4 digit
// generator of numpy/_core/src/multiarray/dragon4.c) for the default print
// options: precision 8, floatmode 'maxprec', threshold 1000, edgeitems 3,
// linewidth 75, sign '-', no suppression. Matching NumPy character for
// character is the point, so the structure follows NumPy's closely; the
// comments say where NumPy's behaviour is subtle.
#include "io/format.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

#include "core/fail.hpp"
#include "core/half.hpp"
#include "core/array.hpp"

namespace cujit {

namespace {

constexpr std::int64_t kThreshold = 1000;  // summarize arrays with more elements
constexpr std::int64_t kEdgeItems = 3;
constexpr int kLineWidth = 75;
constexpr int kPrecision = 8;

// ---------------------------------------------------------------------------
// Exact unsigned big integers: just what digit generation needs.

class BigInt {
 public:
  BigInt() = default;
  explicit BigInt(std::uint64_t v) {
    while (v) {
      w_.push_back(static_cast<std::uint32_t>(v));
      v >>= 32;
    }
  }
  static BigInt pow2(int n) {
    BigInt b(1);
    b.shift_left(n);
    return b;
  }

  void shift_left(int n) {
    if (w_.empty() || n == 0) return;
    int words = n / 32, bits = n % 32;
    if (bits) {
      std::uint32_t carry = 0;
      for (auto& x : w_) {
        std::uint32_t next = x >> (32 - bits);
        x = (x << bits) | carry;
        carry = next;
      }
      if (carry) w_.push_back(carry);
    }
    w_.insert(w_.begin(), static_cast<std::size_t>(words), 0u);
  }

  void mul_small(std::uint32_t m) {
    std::uint64_t carry = 0;
    for (auto& x : w_) {
      std::uint64_t p = static_cast<std::uint64_t>(x) * m + carry;
      x = static_cast<std::uint32_t>(p);
      carry = p >> 32;
    }
    if (carry) w_.push_back(static_cast<std::uint32_t>(carry));
  }

  void mul_pow10(int n) {
    for (; n >= 9; n -= 9) mul_small(1000000000u);
    static constexpr std::uint32_t kPow10[] = {1, 10, 100, 1000, 10000, 100000, 1000000, 10000000, 100000000};
    if (n > 0) mul_small(kPow10[n]);
  }

  void add(const BigInt& b) {
    if (b.w_.size() > w_.size()) w_.resize(b.w_.size(), 0u);
    std::uint64_t carry = 0;
    for (std::size_t i = 0; i < w_.size(); ++i) {
      std::uint64_t s = static_cast<std::uint64_t>(w_[i]) + (i < b.w_.size() ? b.w_[i] : 0u) + carry;
      w_[i] = static_cast<std::uint32_t>(s);
      carry = s >> 32;
    }
    if (carry) w_.push_back(static_cast<std::uint32_t>(carry));
  }

  // *this -= b; requires *this >= b.
  void sub(const BigInt& b) {
    std::int64_t borrow = 0;
    for (std::size_t i = 0; i < w_.size(); ++i) {
      std::int64_t d = static_cast<std::int64_t>(w_[i]) - (i < b.w_.size() ? b.w_[i] : 0u) - borrow;
      borrow = d < 0;
      w_[i] = static_cast<std::uint32_t>(d + (borrow << 32));
    }
    while (!w_.empty() && w_.back() == 0) w_.pop_back();
  }

  friend int compare(const BigInt& a, const BigInt& b) {
    if (a.w_.size() != b.w_.size()) return a.w_.size() < b.w_.size() ? -1 : 1;
    for (std::size_t i = a.w_.size(); i-- > 0;)
      if (a.w_[i] != b.w_[i]) return a.w_[i] < b.w_[i] ? -1 : 1;
    return 0;
  }

 private:
  std::vector<std::uint32_t> w_;  // little-endian 32-bit words, no leading zero words
};

// ---------------------------------------------------------------------------
// Floating-point values of the four float dtypes, kept as bit patterns.

struct FloatVal {
  DType type = DType::Float64;
  std::uint64_t bits = 0;
};

struct Layout {
  int mant_bits, exp_bits;
};

Layout layout(DType t) {
  switch (t) {
    case DType::Float16: return {10, 5};
    case DType::BFloat16: return {7, 8};
    case DType::Float32: return {23, 8};
    default: return {52, 11};
  }
}

double to_double(FloatVal v) {
  switch (v.type) {
    case DType::Float16: return half_to_float(static_cast<std::uint16_t>(v.bits));
    case DType::BFloat16: return bfloat16_to_float(static_cast<std::uint16_t>(v.bits));
    case DType::Float32: return f32_from_bits(static_cast<std::uint32_t>(v.bits));
    default: {
      double d;
      std::memcpy(&d, &v.bits, 8);
      return d;
    }
  }
}

// A float rounded to the precision of `t` (round to nearest even), as a double.
double round_to(DType t, double x) {
  switch (t) {
    case DType::Float16: return half_to_float(float_to_half(static_cast<float>(x)));
    case DType::BFloat16: return bfloat16_to_float(float_to_bfloat16(static_cast<float>(x)));
    case DType::Float32: return static_cast<float>(x);
    default: return x;
  }
}

bool sign_bit(FloatVal v) {
  Layout l = layout(v.type);
  return (v.bits >> (l.mant_bits + l.exp_bits)) & 1u;
}
bool is_finite(FloatVal v) { return std::isfinite(to_double(v)); }

// The value as mantissa * 2^exponent, with what Dragon4 needs to know about
// the gaps to its neighbours.
struct Parts {
  std::uint64_t mantissa = 0;
  int exponent = 0;
  bool unequal_margins = false;  // a power of two: the gap below is half the gap above
};

Parts parts(FloatVal v) {
  Layout l = layout(v.type);
  std::uint64_t m = v.bits & ((std::uint64_t{1} << l.mant_bits) - 1);
  int e = static_cast<int>((v.bits >> l.mant_bits) & ((1u << l.exp_bits) - 1));
  int bias = (1 << (l.exp_bits - 1)) - 1;
  Parts p;
  if (e != 0) {
    p.mantissa = (std::uint64_t{1} << l.mant_bits) | m;
    p.exponent = e - bias - l.mant_bits;
    p.unequal_margins = e != 1 && m == 0;
  } else {
    p.mantissa = m;
    p.exponent = 1 - bias - l.mant_bits;
  }
  return p;
}

// ---------------------------------------------------------------------------
// Dragon4 (Steele & White, Burger & Dybvig) with NumPy's cutoffs: the
// shortest digits that read back as the same value of the value's own type
// (ties to the even digit, bounds included when the mantissa is even),
// stopping early at a cutoff and extending to a minimum, in both cases
// rounding the exact binary value half to even at the last digit.

enum class Cutoff { Fraction, Total };  // count digits after the point, or all digits

struct Digits {
  std::string digits;  // no leading zero unless the value rounds to 0 at a fraction cutoff
  int exponent = 0;    // base-10 exponent of the first digit
};

Digits dragon4(const Parts& p, Cutoff mode, int cutoff_max, int cutoff_min) {
  Digits out;
  if (p.mantissa == 0) {
    out.digits = "0";
    return out;
  }
  const bool even = (p.mantissa & 1) == 0;
  // value = r/s, margins to the neighbours' midpoints = low/s and high/s.
  BigInt r(p.mantissa), s, low, high;
  if (p.exponent >= 0) {
    r.shift_left(p.exponent + 2);
    s = BigInt(4);
    high = BigInt::pow2(p.exponent + 1);
    low = p.unequal_margins ? BigInt::pow2(p.exponent) : high;
  } else {
    r.shift_left(2);
    s = BigInt::pow2(2 - p.exponent);
    high = BigInt(2);
    low = BigInt(p.unequal_margins ? 1 : 2);
  }
  int top_bit = 63;
  while (!((p.mantissa >> top_bit) & 1)) --top_bit;
  // An estimate of k = floor(log10(value)) + 1 that is exact or one too low.
  int k = static_cast<int>(std::ceil((top_bit + p.exponent) * 0.30102999566398119521 - 0.69));
  if (k > 0) {
    s.mul_pow10(k);
  } else if (k < 0) {
    r.mul_pow10(-k);
    low.mul_pow10(-k);
    high.mul_pow10(-k);
  }
  while (compare(r, s) >= 0) {
    s.mul_small(10);
    ++k;
  }
  // A value below the fraction cutoff starts at the cutoff digit (and so
  // rounds to 0 or one unit there).
  if (mode == Cutoff::Fraction && cutoff_max >= 0 && k <= -cutoff_max) {
    s.mul_pow10(-cutoff_max + 1 - k);
    k = -cutoff_max + 1;
  }
  int stop_max = k - 1100;  // more digits than any double has
  if (cutoff_max >= 0) stop_max = std::max(stop_max, mode == Cutoff::Total ? k - cutoff_max : -cutoff_max);
  int stop_min = k;
  if (cutoff_min >= 0) stop_min = std::min(stop_min, mode == Cutoff::Total ? k - cutoff_min : -cutoff_min);
  out.exponent = k - 1;

  int pos = k;
  unsigned digit = 0;
  bool lo = false, hi = false;
  BigInt r_high;
  for (;;) {
    --pos;
    r.mul_small(10);
    low.mul_small(10);
    high.mul_small(10);
    digit = 0;
    while (compare(r, s) >= 0) {
      r.sub(s);
      ++digit;
    }
    r_high = r;
    r_high.add(high);
    int cl = compare(r, low), ch = compare(r_high, s);
    lo = even ? cl <= 0 : cl < 0;   // rounding down here stays inside the interval
    hi = even ? ch >= 0 : ch > 0;   // rounding up here does
    if (((lo || hi) && pos <= stop_min) || pos == stop_max) break;
    out.digits.push_back(static_cast<char>('0' + digit));
  }
  bool round_down = lo;
  if (lo == hi) {  // both or neither allowed: take the nearer, ties to even
    r.mul_small(2);
    int c = compare(r, s);
    round_down = c < 0 || (c == 0 && digit % 2 == 0);
  }
  if (round_down) {
    out.digits.push_back(static_cast<char>('0' + digit));
  } else if (digit < 9) {
    out.digits.push_back(static_cast<char>('0' + digit + 1));
  } else {
    // Carry through the trailing nines (which are dropped).
    for (;;) {
      if (out.digits.empty()) {
        out.digits = "1";
        ++out.exponent;
        break;
      }
      char c = out.digits.back();
      out.digits.pop_back();
      if (c != '9') {
        out.digits.push_back(static_cast<char>(c + 1));
        break;
      }
    }
  }
  return out;
}

// ---------------------------------------------------------------------------
// Dragon4 digits laid out as NumPy's FormatPositional / FormatScientific do.

enum class Trim {
  None,          // 'k': keep trailing zeros and the point
  Zeros,         // '.': trim trailing zeros, keep the point ("1.")
  LeaveOneZero,  // '0': trim all but one zero after the point ("1.0")
  DptZeros,      // '-': trim zeros and the point ("1")
};

struct Options {
  bool scientific = false;
  int precision = -1;   // most digits after the point; -1 for as many as unique needs
  int min_digits = -1;  // fewest digits after the point
  bool plus = false;    // '+' on positive values
  Trim trim = Trim::None;
  int pad_left = -1;    // pad with spaces to this many characters left of the point
  int pad_right = -1;   // (positional) ... and right of it
  int exp_digits = -1;  // (scientific) at least this many exponent digits (default 2)
};

// The digits after the point before trimming: the point itself unless
// DptZeros drops it, then one zero (LeaveOneZero) or zeros up to min_digits
// (Trim::None). Positional and scientific notation share it.
void pad_fraction(std::string& b, int& frac, const Options& o) {
  if (o.trim != Trim::DptZeros && frac == 0) b += '.';
  int wanted = std::max(o.min_digits, 0);
  if (o.trim == Trim::LeaveOneZero) {
    if (frac == 0) {
      b += '0';
      ++frac;
    }
  } else if (o.trim == Trim::None && wanted > frac) {
    b.append(static_cast<std::size_t>(wanted - frac), '0');
    frac = wanted;
  }
}

std::string positional(const Digits& d, const std::string& sign, const Options& o) {
  const int nd = static_cast<int>(d.digits.size());
  int whole = 0, frac = 0;
  std::string b;
  if (d.exponent >= 0) {
    whole = d.exponent + 1;
    if (nd <= whole) {
      b = d.digits + std::string(static_cast<std::size_t>(whole - nd), '0');
    } else {
      b = d.digits.substr(0, static_cast<std::size_t>(whole)) + "." + d.digits.substr(static_cast<std::size_t>(whole));
      frac = nd - whole;
    }
  } else {
    int zeros = -(d.exponent + 1);
    b = "0." + std::string(static_cast<std::size_t>(zeros), '0') + d.digits;
    frac = nd + zeros;
    whole = 1;
  }
  pad_fraction(b, frac, o);
  if (o.trim != Trim::None && frac > 0) {
    while (b.back() == '0') {
      b.pop_back();
      --frac;
    }
    if (b.back() == '.') {
      if (o.trim == Trim::LeaveOneZero) {
        b += '0';
        ++frac;
      } else if (o.trim == Trim::DptZeros) {
        b.pop_back();
      }
    }
  }
  if (o.pad_right >= frac) {
    if (o.trim == Trim::DptZeros && frac == 0) b += ' ';
    b.append(static_cast<std::size_t>(o.pad_right - frac), ' ');
  }
  int left = whole + static_cast<int>(sign.size());
  std::string pad = o.pad_left > left ? std::string(static_cast<std::size_t>(o.pad_left - left), ' ') : "";
  return pad + sign + b;
}

std::string scientific(const Digits& d, const std::string& sign, const Options& o) {
  int left = 1 + static_cast<int>(sign.size());
  std::string b = o.pad_left > left ? std::string(static_cast<std::size_t>(o.pad_left - left), ' ') : "";
  b += sign;
  b += d.digits[0];
  int frac = static_cast<int>(d.digits.size()) - 1;
  if (frac > 0) b += "." + d.digits.substr(1);
  pad_fraction(b, frac, o);
  if (o.trim != Trim::None && frac > 0) {
    while (b.back() == '0') b.pop_back();
    if (o.trim == Trim::LeaveOneZero && b.back() == '.') b += '0';
  }
  int e = d.exponent;
  b += e >= 0 ? "e+" : "e-";
  std::string digits = std::to_string(e >= 0 ? e : -e);
  int width = o.exp_digits < 0 ? 2 : std::min(o.exp_digits, 5);
  if (static_cast<int>(digits.size()) < width) b.append(static_cast<std::size_t>(width) - digits.size(), '0');
  return b + digits;
}

// NumPy's dragon4_positional / dragon4_scientific for one value.
std::string dragon4_format(FloatVal v, const Options& o) {
  bool neg = sign_bit(v);
  double x = to_double(v);
  if (std::isnan(x)) return "nan";
  std::string sign = neg ? "-" : o.plus ? "+" : "";
  if (std::isinf(x)) return sign + "inf";
  Parts p = parts(v);
  if (o.scientific) {
    Digits d = dragon4(p, Cutoff::Total, o.precision < 0 ? -1 : o.precision + 1,
                       o.min_digits < 0 ? -1 : o.min_digits + 1);
    return scientific(d, sign, o);
  }
  Digits d = dragon4(p, Cutoff::Fraction, o.precision, o.min_digits);
  return positional(d, sign, o);
}

// ---------------------------------------------------------------------------
// Scalars: str() of a NumPy scalar, which is what a 0-d array prints as.

// Values at least this large print in scientific notation: 10**precision of
// the type in NumPy 2.3+ (float64 keeps the older 1e16). The same limit
// decides positional or scientific for whole arrays, except that float64
// arrays switch at 1e8.
double max_positional_scalar(DType t) {
  switch (t) {
    case DType::Float16: return 1e3;
    case DType::BFloat16: return 1e2;
    case DType::Float32: return 1e6;
    default: return 1e16;
  }
}

std::string scalar_float(FloatVal v, Trim trim_pos, Trim trim_sci, bool plus) {
  double x = to_double(v), ax = std::fabs(x);
  bool use_positional = std::isnan(x) || x == 0 || (ax < max_positional_scalar(v.type) && ax >= 1e-4);
  Options o;
  o.plus = plus;
  o.scientific = !use_positional;
  o.trim = use_positional ? trim_pos : trim_sci;
  return dragon4_format(v, o);
}

std::string scalar_complex(FloatVal re, FloatVal im) {
  double r = to_double(re), i = to_double(im);
  if (r == 0 && !sign_bit(re)) return scalar_float(im, Trim::DptZeros, Trim::DptZeros, false) + "j";
  std::string rs = std::isfinite(r) ? scalar_float(re, Trim::DptZeros, Trim::DptZeros, false)
                   : std::isnan(r)  ? "nan"
                   : r > 0          ? "inf"
                                    : "-inf";
  std::string is = std::isfinite(i) ? scalar_float(im, Trim::DptZeros, Trim::DptZeros, true)
                   : std::isnan(i)  ? "+nan"
                   : i > 0          ? "+inf"
                                    : "-inf";
  return "(" + rs + is + "j)";
}

// ---------------------------------------------------------------------------
// Element formatters over the (possibly summarized) data, as arrayprint.py's
// FloatingFormat, ComplexFloatingFormat, IntegerFormat and BoolFormat.

// FloatingFormat: decides notation, digits and padding from all the values,
// then formats each to the common width.
class FloatFormat {
 public:
  FloatFormat(const std::vector<FloatVal>& data, DType type, bool plus) : plus_(plus) {
    std::vector<FloatVal> finite;
    bool nonfinite = false, neg_inf = false;
    for (auto v : data) {
      if (is_finite(v)) {
        finite.push_back(v);
      } else {
        nonfinite = true;
        double x = to_double(v);
        neg_inf |= std::isinf(x) && x < 0;
      }
    }
    double max_val = 0, min_val = 0;
    bool any_nonzero = false;
    for (auto v : finite) {
      double a = std::fabs(to_double(v));
      if (a == 0) continue;
      max_val = any_nonzero ? std::max(max_val, a) : a;
      min_val = any_nonzero ? std::min(min_val, a) : a;
      any_nonzero = true;
    }
    if (any_nonzero) {
      // NumPy compares in the array's dtype (NEP 50 makes the Python float
      // operands weak): the 1e-4 threshold is rounded to the dtype and the
      // ratio max/min is computed in it, overflowing to inf for float16.
      double cutoff = type == DType::Float64 ? 1e8 : max_positional_scalar(type);
      double ratio = type == DType::Float64 ? max_val / min_val
                     : type == DType::Float32
                         ? static_cast<double>(static_cast<float>(max_val) / static_cast<float>(min_val))
                         : round_to(type, static_cast<double>(static_cast<float>(max_val) /
                                                               static_cast<float>(min_val)));
      exp_format_ = max_val >= cutoff || min_val < round_to(type, 1e-4) || ratio > 1000.0;
    }

    if (finite.empty()) {
      pad_left_ = pad_right_ = 0;
    } else if (exp_format_) {
      Options o;
      o.scientific = true;
      o.precision = kPrecision;
      o.trim = Trim::Zeros;
      o.plus = plus_;
      int exp_len = 0, frac_len = 0, int_len = 0;
      for (auto v : finite) {
        std::string s = dragon4_format(v, o);
        std::size_t e = s.find('e'), dot = s.find('.');
        exp_len = std::max(exp_len, static_cast<int>(s.size() - e - 1));
        frac_len = std::max(frac_len, static_cast<int>(e - dot - 1));
        int_len = std::max(int_len, static_cast<int>(dot));
      }
      exp_size_ = exp_len - 1;
      precision_ = min_digits_ = frac_len;
      trim_ = Trim::None;
      pad_left_ = int_len;
      pad_right_ = exp_size_ + 2 + precision_;
    } else {
      Options o;
      o.precision = kPrecision;
      o.trim = Trim::Zeros;
      o.plus = plus_;
      int frac_len = 0, int_len = 0;
      for (auto v : finite) {
        std::string s = dragon4_format(v, o);
        std::size_t dot = s.find('.');
        int_len = std::max(int_len, static_cast<int>(dot));
        frac_len = std::max(frac_len, static_cast<int>(s.size() - dot - 1));
      }
      pad_left_ = int_len;
      pad_right_ = frac_len;
      min_digits_ = 0;
    }
    if (nonfinite) {
      int offset = pad_right_ + 1;  // the point
      pad_left_ = std::max({pad_left_, 3 - offset, 3 + ((plus_ || neg_inf) ? 1 : 0) - offset});
    }
  }

  std::string operator()(FloatVal v) const {
    double x = to_double(v);
    if (!std::isfinite(x)) {
      std::string s = std::isnan(x) ? (plus_ ? "+nan" : "nan") : x < 0 ? "-inf" : plus_ ? "+inf" : "inf";
      int width = pad_left_ + pad_right_ + 1;
      return std::string(static_cast<std::size_t>(std::max(0, width - static_cast<int>(s.size()))), ' ') + s;
    }
    Options o;
    o.scientific = exp_format_;
    o.precision = precision_;
    o.min_digits = min_digits_;
    o.plus = plus_;
    o.trim = trim_;
    o.pad_left = pad_left_;
    if (exp_format_) o.exp_digits = exp_size_;
    else o.pad_right = pad_right_;
    return dragon4_format(v, o);
  }

 private:
  bool plus_;
  bool exp_format_ = false;
  int precision_ = kPrecision;
  int min_digits_ = -1;
  Trim trim_ = Trim::Zeros;
  int pad_left_ = 0, pad_right_ = 0;
  int exp_size_ = -1;
};

// ---------------------------------------------------------------------------
// Reading elements of a strided view

struct Reader {
  const ArrayView& a;

  const char* at(const std::int64_t* idx) const {
    const char* p = static_cast<const char*>(a.data);
    for (int k = 0; k < a.shape.ndim; ++k) p += idx[k] * a.strides[k];
    return p;
  }
  template <class T>
  T load(const char* p) const {
    T v;
    std::memcpy(&v, p, sizeof v);
    return v;
  }
  // A component (the real or imaginary part for complex dtypes) as a FloatVal.
  FloatVal float_at(const char* p, int part = 0) const {
    switch (a.dtype) {
      case DType::Float16:
      case DType::BFloat16: return {a.dtype, load<std::uint16_t>(p)};
      case DType::Float32: return {a.dtype, load<std::uint32_t>(p)};
      case DType::Complex64: return {DType::Float32, load<std::uint32_t>(p + 4 * part)};
      case DType::Complex128: return {DType::Float64, load<std::uint64_t>(p + 8 * part)};
      default: return {DType::Float64, load<std::uint64_t>(p)};
    }
  }
  bool is_signed() const { return is_signed_int(a.dtype); }
  std::int64_t signed_at(const char* p) const {
    switch (a.dtype) {
      case DType::Int8: return load<std::int8_t>(p);
      case DType::Int16: return load<std::int16_t>(p);
      case DType::Int32: return load<std::int32_t>(p);
      default: return load<std::int64_t>(p);
    }
  }
  std::uint64_t unsigned_at(const char* p) const {
    switch (a.dtype) {
      case DType::UInt8: return load<std::uint8_t>(p);
      case DType::UInt16: return load<std::uint16_t>(p);
      case DType::UInt32: return load<std::uint32_t>(p);
      default: return load<std::uint64_t>(p);
    }
  }
  std::string int_str(const char* p) const {
    return is_signed() ? std::to_string(signed_at(p)) : std::to_string(unsigned_at(p));
  }
};

// The indices printed along one axis: all of them, or the edges when the
// array is summarized and the axis is long.
std::vector<std::int64_t> shown(std::int64_t n, bool summarize) {
  std::vector<std::int64_t> idx;
  if (summarize && n > 2 * kEdgeItems) {
    for (std::int64_t i = 0; i < kEdgeItems; ++i) idx.push_back(i);
    for (std::int64_t i = n - kEdgeItems; i < n; ++i) idx.push_back(i);
  } else {
    for (std::int64_t i = 0; i < n; ++i) idx.push_back(i);
  }
  return idx;
}

// Formats the elements of an array as NumPy's _formatArray does.
class ArrayFormatter {
 public:
  explicit ArrayFormatter(const ArrayView& a) : rd_{a}, summarize_(a.size() > kThreshold) {
    // The element formatter sees only the elements that will be shown, as
    // NumPy's _leading_trailing arranges.
    std::vector<std::vector<std::int64_t>> axes;
    for (int k = 0; k < a.shape.ndim; ++k) axes.push_back(shown(a.shape[k], summarize_));
    std::vector<const char*> elems;
    std::array<std::int64_t, kMaxDims> pos{}, idx{};
    for (;;) {
      for (int k = 0; k < a.shape.ndim; ++k) idx[k] = axes[k][pos[k]];
      elems.push_back(rd_.at(idx.data()));
      int k = a.shape.ndim - 1;
      for (; k >= 0; --k) {
        if (++pos[k] < static_cast<std::int64_t>(axes[k].size())) break;
        pos[k] = 0;
      }
      if (k < 0) break;
    }
    if (is_integer(a.dtype)) {
      std::size_t width = 0;
      for (auto p : elems) width = std::max(width, rd_.int_str(p).size());
      int_width_ = width;
    } else if (is_float(a.dtype) || is_complex(a.dtype)) {
      DType part = a.dtype == DType::Complex64 ? DType::Float32 : a.dtype == DType::Complex128 ? DType::Float64
                                                                                               : a.dtype;
      std::vector<FloatVal> re, im;
      for (auto p : elems) {
        re.push_back(rd_.float_at(p, 0));
        if (is_complex(a.dtype)) im.push_back(rd_.float_at(p, 1));
      }
      real_ = std::make_unique<FloatFormat>(re, part, false);
      if (is_complex(a.dtype)) imag_ = std::make_unique<FloatFormat>(im, part, true);
    }
  }

  std::string format() {
    std::vector<std::int64_t> index;
    return recurse(index, " ", kLineWidth);
  }

 private:
  std::string element(const std::vector<std::int64_t>& index) const {
    const char* p = rd_.at(index.data());
    const ArrayView& a = rd_.a;
    if (a.dtype == DType::Bool) return *reinterpret_cast<const unsigned char*>(p) ? " True" : "False";
    if (is_integer(a.dtype)) {
      std::string s = rd_.int_str(p);
      return std::string(int_width_ - s.size(), ' ') + s;
    }
    if (!imag_) return (*real_)(rd_.float_at(p, 0));
    // The 'j' goes before the imaginary part's padding.
    std::string i = (*imag_)(rd_.float_at(p, 1));
    std::size_t end = i.find_last_not_of(' ') + 1;
    return (*real_)(rd_.float_at(p, 0)) + i.substr(0, end) + "j" + i.substr(end);
  }

  // _extendLine: wrap before `word` if it would pass the width, unless the
  // line holds nothing but its indent.
  static void extend_line(std::string& s, std::string& line, const std::string& word, int width,
                          const std::string& indent) {
    if (static_cast<int>(line.size() + word.size()) > width && line.size() > indent.size()) {
      std::size_t end = line.find_last_not_of(' ');
      s += line.substr(0, end == std::string::npos ? 0 : end + 1) + "\n";
      line = indent;
    }
    line += word;
  }

  std::string recurse(std::vector<std::int64_t>& index, const std::string& indent, int width) {
    const ArrayView& a = rd_.a;
    const int axis = static_cast<int>(index.size());
    const int axes_left = a.shape.ndim - axis;
    if (axes_left == 0) return element(index);
    const std::string next_indent = indent + " ";
    const int next_width = width - 1;  // room for the closing ']'
    const std::int64_t n = a.shape[axis];
    const bool summary = summarize_ && 2 * kEdgeItems < n;
    const std::int64_t leading = summary ? kEdgeItems : 0, trailing = summary ? kEdgeItems : n;

    auto sub = [&](std::int64_t i) {
      index.push_back(i);
      std::string r = recurse(index, next_indent, next_width);
      index.pop_back();
      return r;
    };
    std::string s;
    if (axes_left == 1) {
      const int elem_width = width - 1;
      std::string line = indent;
      for (std::int64_t i = 0; i < leading; ++i) {
        extend_line(s, line, sub(i), elem_width, indent);
        line += ' ';
      }
      if (summary) {
        extend_line(s, line, "...", elem_width, indent);
        line += ' ';
      }
      for (std::int64_t i = trailing; i > 1; --i) {
        extend_line(s, line, sub(n - i), elem_width, indent);
        line += ' ';
      }
      extend_line(s, line, sub(n - 1), elem_width, indent);
      s += line;
    } else {
      const std::string line_sep(static_cast<std::size_t>(axes_left - 1), '\n');
      for (std::int64_t i = 0; i < leading; ++i) s += indent + sub(i) + line_sep;
      if (summary) s += indent + "..." + line_sep;
      for (std::int64_t i = trailing; i > 1; --i) s += indent + sub(n - i) + line_sep;
      s += indent + sub(n - 1);
    }
    return "[" + s.substr(indent.size()) + "]";
  }

  Reader rd_;
  bool summarize_;
  std::size_t int_width_ = 0;
  std::unique_ptr<FloatFormat> real_, imag_;
};

}  // namespace

std::string format_array(const ArrayView& a) {
  if (a.device.kind != Device::CPU)
    fail(ErrorCode::Data, "cannot print an array on a CUDA device; copy it to the host first");
  if (a.shape.ndim < 0 || a.shape.ndim > kMaxDims)
    fail(ErrorCode::Data, "cannot print an array of {} dimensions", a.shape.ndim);
  for (int k = 0; k < a.shape.ndim; ++k)
    if (a.shape[k] < 0) fail(ErrorCode::Data, "cannot print an array with negative extent {}", a.shape[k]);
  // A wrapped element count would defeat summarization (and loop 2^64 times).
  if (checked_size(a.shape) < 0)
    fail(ErrorCode::Data, "cannot print an array of shape {}: its element count does not fit in 64 bits", to_string(a.shape));
  if (a.shape.ndim == 0) {
    Reader rd{a};
    const char* p = static_cast<const char*>(a.data);
    if (a.dtype == DType::Bool) return *reinterpret_cast<const unsigned char*>(p) ? "True" : "False";
    if (is_integer(a.dtype)) return rd.int_str(p);
    if (is_complex(a.dtype)) return scalar_complex(rd.float_at(p, 0), rd.float_at(p, 1));
    return scalar_float(rd.float_at(p), Trim::LeaveOneZero, Trim::DptZeros, false);
  }
  if (a.size() == 0) return "[]";
  return ArrayFormatter(a).format();
}

}  // namespace cujit

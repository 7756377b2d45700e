#include "core/number.hpp"

#include <charconv>
#include <cmath>
#include <limits>
#include <system_error>

namespace cujit {

namespace {

// from_chars leaves the value untouched when it is out of range; whether the
// number overflowed or underflowed follows from the decimal exponent of its
// leading nonzero digit.
double out_of_range(std::string_view t) {
  const bool neg = !t.empty() && t[0] == '-';
  if (neg) t.remove_prefix(1);
  std::size_t e = t.find_first_of("eE");
  std::string_view mant = t.substr(0, e);
  long long exp10 = 0;
  if (e != std::string_view::npos) {
    std::string_view x = t.substr(e + 1);
    bool xneg = !x.empty() && x[0] == '-';
    if (!x.empty() && (x[0] == '-' || x[0] == '+')) x.remove_prefix(1);
    // Capped at half the range: no digit count can offset it, and adding one
    // cannot overflow (9223372036854775806 parses, and + 2 digits would not).
    constexpr long long kCap = std::numeric_limits<long long>::max() / 2;
    if (std::from_chars(x.data(), x.data() + x.size(), exp10).ec == std::errc::result_out_of_range || exp10 > kCap)
      exp10 = kCap;
    if (xneg) exp10 = -exp10;
  }
  std::size_t dot = mant.find('.');
  if (dot == std::string_view::npos) dot = mant.size();
  std::size_t first = mant.find_first_of("123456789");
  long long mag = first == std::string_view::npos ? 0
                  : first < dot ? static_cast<long long>(dot - first) - 1
                                : -static_cast<long long>(first - dot);
  double v = mag + exp10 > 0 ? std::numeric_limits<double>::infinity() : 0.0;
  return neg ? -v : v;
}

}  // namespace

std::size_t parse_double_prefix(std::string_view text, double& out) {
  std::size_t skip = 0;
  if (!text.empty() && text[0] == '+' && (text.size() < 2 || text[1] != '-')) skip = 1;
  const char* b = text.data() + skip;
  const char* e = text.data() + text.size();
  double v = 0;
  auto r = std::from_chars(b, e, v, std::chars_format::general);
  if (r.ec == std::errc::invalid_argument) return 0;
  const std::size_t used = static_cast<std::size_t>(r.ptr - text.data());
  out = r.ec == std::errc::result_out_of_range ? out_of_range(text.substr(skip, used - skip)) : v;
  return used;
}

std::optional<double> parse_double(std::string_view text) {
  double v = 0;
  if (text.empty() || parse_double_prefix(text, v) != text.size()) return std::nullopt;
  return v;
}

}  // namespace cujit

// Decimal numbers read the same in every locale. strtod, std::stod and
// istringstream follow the C or C++ locale: after a host application calls
// setlocale(LC_ALL, "de_DE.UTF-8"), strtod("2.5") stops at the '.' and reads
// 2. std::from_chars never looks at the locale.
#pragma once
#include <cstddef>
#include <optional>
#include <string_view>

namespace cujit {

// Reads the longest decimal number at the start of `text` ("2.5", "-1e6",
// ".5", "inf"; a leading '+' is accepted) into `out` and returns how many
// characters it used, 0 when there is none. Beyond double's range the value is
// +-inf (overflow) or +-0 (underflow), as in Python and strtod.
std::size_t parse_double_prefix(std::string_view text, double& out);

// The whole of `text` as a decimal number; nullopt when it is not one.
std::optional<double> parse_double(std::string_view text);

}  // namespace cujit

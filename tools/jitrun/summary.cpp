#include "summary.hpp"

#include <fmt/format.h>

#include <cmath>
#include <complex>
#include <cstdint>
#include <vector>

#include "core/scalar.hpp"
#include "cujit/evaluate.hpp"
#include "io/format.hpp"

namespace cujit::jitrun {

namespace {

// Below this size an output on a GPU comes to the host and the CPU
// evaluator's threads reduce it: a copy of a few milliseconds at most, where
// the GPU's reduction kernels could cost a compile on a cold cache.
constexpr std::size_t kOnDeviceFrom = std::size_t{32} << 20;

// The statistics as a cujit program of `x`: each a reduction that runs where
// x is. NaNs are left out of min, max and mean (counted instead), as
// jitrun always printed them; the sum is a float64 one, as NumPy's mean.
const char* stats_program(DType t) {
  if (t == DType::Bool) return "t = sum(x)";
  if (is_float(t))
    return "lo = min(where(isnan(x), inf, x)); hi = max(where(isnan(x), -inf, x)); "
           "s = sum(where(isnan(x), 0, x), dtype=float64); nans = sum(isnan(x))";
  return "lo = min(x); hi = max(x); s = sum(x, dtype=float64)";
}

double as_double(const Array& a) {
  const Array h = a.device().kind == Device::CPU ? a : a.to_host();
  const void* p = h.data();
  using namespace scalar;
  switch (h.dtype()) {
    case DType::Bool: return *static_cast<const bool*>(p);
    case DType::Int8: return *static_cast<const std::int8_t*>(p);
    case DType::Int16: return *static_cast<const std::int16_t*>(p);
    case DType::Int32: return *static_cast<const std::int32_t*>(p);
    case DType::Int64: return static_cast<double>(*static_cast<const std::int64_t*>(p));
    case DType::UInt8: return *static_cast<const std::uint8_t*>(p);
    case DType::UInt16: return *static_cast<const std::uint16_t*>(p);
    case DType::UInt32: return *static_cast<const std::uint32_t*>(p);
    case DType::UInt64: return static_cast<double>(*static_cast<const std::uint64_t*>(p));
    case DType::Float16: return cast<double>(*static_cast<const Half*>(p));
    case DType::BFloat16: return cast<double>(*static_cast<const BF16*>(p));
    case DType::Float32: return *static_cast<const float*>(p);
    case DType::Float64: return *static_cast<const double*>(p);
    default: return NAN;  // complex: not a statistic here
  }
}

// Complex values are rare enough to be summed on the host, as before.
std::string complex_line(const Array& a) {
  const Array h = a.device().kind == Device::CPU ? a : a.to_host();
  const std::int64_t n = h.size();
  auto at = [&](std::int64_t k) -> std::complex<double> {
    if (h.dtype() == DType::Complex64) return std::complex<double>(static_cast<const std::complex<float>*>(h.data())[k]);
    return static_cast<const std::complex<double>*>(h.data())[k];
  };
  std::complex<double> sum = 0;
  for (std::int64_t k = 0; k < n; ++k) sum += at(k);
  return fmt::format("  mean: {:.6g}{:+.6g}j  first: {:.6g}{:+.6g}j", sum.real() / static_cast<double>(n),
                     sum.imag() / static_cast<double>(n), at(0).real(), at(0).imag());
}

// The line from the statistics' values, by name.
template <class Get> std::string stats_line(DType t, std::int64_t n, Get get) {
  if (t == DType::Bool) return fmt::format("  true: {} of {}", static_cast<std::int64_t>(get("t")), n);
  const double nans = is_float(t) ? get("nans") : 0;
  const double lo = get("lo"), hi = get("hi"), s = get("s");
  const double kept = static_cast<double>(n) - nans;
  std::string line = fmt::format("  min: {:.6g}  max: {:.6g}  mean: {:.6g}", lo, hi, kept > 0 ? s / kept : NAN);
  if (nans > 0) line += fmt::format("  nan: {}", static_cast<std::int64_t>(nans));
  return line;
}

std::string head(const std::string& name, DType t, const Shape& s) {
  return fmt::format("{}: {} {}", name, dtype_name(t), to_string(s));
}

}  // namespace

std::string summary(const std::string& name, const Array& array) {
  const Array a = array.device().kind != Device::CPU && array.nbytes() < kOnDeviceFrom ? array.to_host() : array;
  std::string s = head(name, a.dtype(), a.shape());
  if (a.size() == 0) return s + "  (empty)";
  if (a.shape().ndim == 0) return s + " = " + format_array((a.device().kind == Device::CPU ? a : a.to_host()).view());
  if (is_complex(a.dtype())) return s + complex_line(a);
  const NamedArrays st = evaluate(stats_program(a.dtype()), {{"x", Arg(a.view())}});
  return s + stats_line(a.dtype(), a.size(), [&](const char* v) { return as_double(st[v]); });
}

std::string summary(const std::string& name, const SplitArray& a) {
  std::string s = head(name, a.dtype, a.shape);
  std::int64_t n = 1;
  for (int d = 0; d < a.shape.ndim; ++d) n *= a.shape[d];
  if (n == 0 || a.shape.ndim == 0 || is_complex(a.dtype) || a.pieces.size() == 1 ||
      static_cast<std::size_t>(n) * dtype_size(a.dtype) < kOnDeviceFrom) {
    if (a.pieces.size() == 1) return summary(name, a.pieces[0].array);
    return summary(name, a.gather());
  }
  std::vector<int> devices;
  for (const ArrayPiece& p : a.pieces) devices.push_back(p.device);
  const std::vector<SplitArray> st = evaluate_split(stats_program(a.dtype), {}, {SplitInput{"x", a}}, devices);
  return s + stats_line(a.dtype, n, [&](const char* v) {
           for (const SplitArray& o : st)
             if (o.name == v) return as_double(o.gather());
           return double(NAN);
         });
}

}  // namespace cujit::jitrun

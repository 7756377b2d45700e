// Helpers of the GPU tests: random inputs of every dtype, poisoned outputs,
// device placement of a host array in the layouts the launcher distinguishes.
#pragma once
#include <algorithm>
#include <cmath>
#include <complex>
#include <cstdint>
#include <cstdlib>
#include <cstdio>
#include <cstring>
#include <random>
#include <string>
#include <utility>

#include <sys/wait.h>

#include "cujit/array.hpp"
#include "core/driver.hpp"
#include "core/scalar.hpp"

namespace cujit::gputest {

// The seed of this run's random inputs: $CUJIT_TEST_SEED, else fresh (printed
// by the test main, so a failure can be replayed).
inline std::uint64_t run_seed() {
  static const std::uint64_t seed = [] {
    const char* e = std::getenv("CUJIT_TEST_SEED");
    if (e && *e) return static_cast<std::uint64_t>(std::strtoull(e, nullptr, 0));
    std::random_device rd;
    return (static_cast<std::uint64_t>(rd()) << 32) ^ rd();
  }();
  return seed;
}

// Random values of `t`: integers over the whole range with their edges mixed
// in; floats mostly in [-8, 8] with specials (±0, ±inf, NaN, tiny, huge).
inline void fill_random(HostArray& a, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> uni(-8.0, 8.0);
  std::uniform_int_distribution<int> pick(0, 99);
  const double specials[] = {0.0, -0.0, INFINITY, -INFINITY, NAN, 1e-3, 100.0, -100.0, 1e30, 3e-39, 0.5, -1.0};
  auto real = [&]() -> double {
    int p = pick(rng);
    if (p < 12) return specials[static_cast<std::size_t>(p) % (sizeof specials / sizeof specials[0])];
    return uni(rng);
  };
  const std::int64_t n = a.size();
  auto* bytes = static_cast<unsigned char*>(a.data());
  for (std::int64_t k = 0; k < n; ++k) {
    unsigned char* p = bytes + static_cast<std::size_t>(k) * dtype_size(a.dtype());
    using namespace scalar;
    auto put = [&](auto v) { std::memcpy(p, &v, sizeof v); };
    std::uint64_t bits = rng();
    int edge = pick(rng);
    switch (a.dtype()) {
      case DType::Bool: put(static_cast<bool>(bits & 1)); break;
      case DType::Int8: put(static_cast<std::int8_t>(edge < 5 ? (edge == 0 ? -128 : edge == 1 ? 127 : edge - 3) : static_cast<std::int8_t>(bits))); break;
      case DType::Int16: put(static_cast<std::int16_t>(edge < 5 ? (edge == 0 ? -32768 : edge == 1 ? 32767 : edge - 3) : static_cast<std::int16_t>(bits))); break;
      case DType::Int32: put(static_cast<std::int32_t>(edge < 5 ? (edge == 0 ? INT32_MIN : edge == 1 ? INT32_MAX : edge - 3) : static_cast<std::int32_t>(bits))); break;
      case DType::Int64: put(static_cast<std::int64_t>(edge < 5 ? (edge == 0 ? INT64_MIN : edge == 1 ? INT64_MAX : edge - 3) : static_cast<std::int64_t>(bits))); break;
      case DType::UInt8: put(static_cast<std::uint8_t>(edge < 3 ? edge : bits)); break;
      case DType::UInt16: put(static_cast<std::uint16_t>(edge < 3 ? edge : bits)); break;
      case DType::UInt32: put(static_cast<std::uint32_t>(edge < 3 ? edge : bits)); break;
      case DType::UInt64: put(static_cast<std::uint64_t>(edge < 3 ? static_cast<std::uint64_t>(edge) : bits)); break;
      case DType::Float16: put(cast<Half>(real())); break;
      case DType::BFloat16: put(cast<BF16>(real())); break;
      case DType::Float32: put(static_cast<float>(real())); break;
      case DType::Float64: put(real()); break;
      case DType::Complex64: put(std::complex<float>(static_cast<float>(real()), static_cast<float>(real()))); break;
      case DType::Complex128: put(std::complex<double>(real(), real())); break;
    }
  }
}

inline void poison(const ArrayView& v, std::size_t bytes) {
  if (bytes) memset_d8(v.device.id, reinterpret_cast<CUdeviceptr>(v.data), 0xFF, bytes);
}

// A device copy of a compact host array whose elements sit `step` elements
// apart (step 1: contiguous); the gaps hold 0xA5 bytes.
struct Spread {
  Array buffer;   // step * size elements
  ArrayView view;
};
inline Spread spread_to_device(const HostArray& h, int device, int step) {
  Spread s;
  const std::size_t item = dtype_size(h.dtype());
  const std::int64_t n = h.size();
  HostArray tmp(h.dtype(), Shape{std::max<std::int64_t>(1, n) * step});
  std::memset(tmp.data(), 0xA5, tmp.nbytes());
  for (std::int64_t k = 0; k < n; ++k)
    std::memcpy(static_cast<unsigned char*>(tmp.data()) + static_cast<std::size_t>(k * step) * item,
                static_cast<const unsigned char*>(h.data()) + static_cast<std::size_t>(k) * item, item);
  s.buffer = Array::copy_of(tmp.view(), Device::cuda(device));
  s.view = s.buffer.view();
  s.view.shape = h.shape();
  s.view.strides = ArrayView::contiguous_strides(h.shape(), h.dtype());
  for (int d = 0; d < s.view.strides.ndim; ++d) s.view.strides[d] *= step;
  return s;
}

// An output of `shape` whose elements sit `step` apart, poisoned with 0xFF.
inline Spread poisoned_output(DType t, const Shape& shape, int device, int step) {
  Spread s;
  s.buffer = Array::empty(t, Shape{std::max<std::int64_t>(1, shape.size()) * step}, Device::cuda(device));
  poison(s.buffer.view(), s.buffer.nbytes());
  s.view = s.buffer.view();
  s.view.shape = shape;
  s.view.strides = ArrayView::contiguous_strides(shape, t);
  for (int d = 0; d < s.view.strides.ndim; ++d) s.view.strides[d] *= step;
  return s;
}

// The output's elements in C order; `gaps_ok` tells whether every byte
// between them is still the poison (nothing was written out of place).
inline HostArray gather(const Spread& s, int step, bool* gaps_ok) {
  Array all = s.buffer.to_host();
  HostArray out(s.view.dtype, s.view.shape);
  const std::size_t item = dtype_size(s.view.dtype);
  const std::int64_t n = out.size();
  const auto* src = static_cast<const unsigned char*>(all.data());
  for (std::int64_t k = 0; k < n; ++k)
    std::memcpy(static_cast<unsigned char*>(out.data()) + static_cast<std::size_t>(k) * item,
                src + static_cast<std::size_t>(k * step) * item, item);
  bool ok = true;
  for (std::int64_t k = 0; k < static_cast<std::int64_t>(all.nbytes()); ++k) {
    std::int64_t element = k / static_cast<std::int64_t>(item);
    bool is_gap = element % step != 0 || element / step >= n;
    if (is_gap && src[k] != 0xFF) ok = false;
  }
  if (gaps_ok) *gaps_ok = ok;
  return out;
}

// Runs `cmd` through the shell, its redirections as written: the exit status
// (-1 when it could not start or did not exit normally) and what it printed
// on standard output. The tests that run jitrun or jitcache as a user would.
inline std::pair<int, std::string> shell_output(const std::string& cmd) {
  std::pair<int, std::string> r{-1, ""};
  FILE* f = ::popen(cmd.c_str(), "r");
  if (!f) return r;
  char buf[4096];
  while (std::size_t n = std::fread(buf, 1, sizeof buf, f)) r.second.append(buf, n);
  const int status = ::pclose(f);
  if (WIFEXITED(status)) r.first = WEXITSTATUS(status);
  return r;
}

}  // namespace cujit::gputest

// Any byte string is a program: it must either check (and then evaluate) or
// raise cujit::Error. Anything else (a crash, a sanitizer report, another
// exception) is a bug.
#include <cstdint>
#include <cstring>
#include <string>

#include "lang/check.hpp"
#include "cujit/error.hpp"
#include "cpu/eval.hpp"

using namespace cujit;

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  std::string program(reinterpret_cast<const char*>(data), size);
  static HostArray x(DType::Float32, Shape{3}), k(DType::Int8, Shape{3}), u(DType::UInt64, Shape{3}),
      z(DType::Complex64, Shape{3}), h(DType::Float16, Shape{3}), r(DType::Int32, Shape{4}), a(DType::Int64, Shape{}),
      m(DType::Float64, Shape{2, 3});
  static bool init = [] {
    float xv[3] = {-1.5f, 0.0f, 1e30f};
    std::memcpy(x.data(), xv, sizeof xv);
    std::int8_t kv[3] = {-128, 0, 127};
    std::memcpy(k.data(), kv, sizeof kv);
    std::uint64_t uv[3] = {0, 1, ~0ull};
    std::memcpy(u.data(), uv, sizeof uv);
    std::memset(z.data(), 0x3f, z.nbytes());
    std::memset(h.data(), 0x7c, h.nbytes());
    std::int32_t rv[4] = {0, 1, 2, 3};
    std::memcpy(r.data(), rv, sizeof rv);
    *a.as<std::int64_t>() = 7;
    // A matrix for reductions over an axis (and their broadcasts back): a NaN, a tie, a -0.
    double mv[6] = {1.0, __builtin_nan(""), -0.0, 4.0, 4.0, -1e300};
    std::memcpy(m.data(), mv, sizeof mv);
    return true;
  }();
  (void)init;
  std::vector<Input> inputs = {{"x", x.view()}, {"k", k.view()}, {"u", u.view()}, {"z", z.view()},
                               {"h", h.view()}, {"r", r.view(), false, true}, {"a", a.view(), true},
                               {"m", m.view()}};
  try {
    evaluate_cpu(program, inputs);
  } catch (const Error&) {
  }
  return 0;
}

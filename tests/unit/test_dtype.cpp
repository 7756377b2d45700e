#include "catch.hpp"
#include "cujit/dtype.hpp"
#include "core/half.hpp"

using namespace cujit;

TEST_CASE("dtype names round-trip, aliases resolve, C names do not") {
  for (int k = 0; k < kNumDTypes; ++k) {
    auto t = static_cast<DType>(k);
    REQUIRE(dtype_from_name(dtype_name(t)) == t);
  }
  CHECK(dtype_from_name("double") == DType::Float64);
  CHECK(dtype_from_name("half") == DType::Float16);
  CHECK_FALSE(dtype_from_name("float"));
  CHECK_FALSE(dtype_from_name("int"));
  CHECK(dtype_size(DType::Complex128) == 16);
}

TEST_CASE("float16 conversion is exact on every half value and rounds to nearest even") {
  for (std::uint32_t h = 0; h < 0x10000; ++h) {
    float f = half_to_float(static_cast<std::uint16_t>(h));
    if (f != f) continue;  // nan: payload only
    REQUIRE(float_to_half(f) == h);
  }
  CHECK(float_to_half(65519.0f) == 0x7bff);
  CHECK(float_to_half(65520.0f) == 0x7c00);
  CHECK(float_to_half(1.0f + 1.0f / 2048) == 0x3c00);  // tie to even
  CHECK(float_to_half(1.0f + 3.0f / 2048) == 0x3c02);
  CHECK(float_to_half(2.98e-8f) == 0x0000);  // < 2^-25 rounds to zero
  CHECK(float_to_half(2.99e-8f) == 0x0001);
}

TEST_CASE("bfloat16 conversion rounds to nearest even") {
  CHECK(float_to_bfloat16(1.0f) == 0x3f80);
  CHECK(bfloat16_to_float(0x3f80) == 1.0f);
  CHECK(float_to_bfloat16(f32_from_bits(0x3f808000u)) == 0x3f80);  // tie to even
  CHECK(float_to_bfloat16(f32_from_bits(0x3f818000u)) == 0x3f82);
}

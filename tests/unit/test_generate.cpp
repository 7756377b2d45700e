// The array generators (src/plan/generator.hpp, templates/random.cuh) on the
// host: Philox's known answers, the own log/sin/cos against libm, the
// conversions against the language's cast, statistics, and reproducibility.
// tests/gpu/test_generate_gpu.cpp checks that the GPU fill gives the same bits.
#include "catch.hpp"
#include "cpu/generate_host.hpp"

#include <cmath>
#include <complex>
#include <cstring>
#include <limits>
#include <random>
#include <vector>

#include "core/ops_host.hpp"
#include "cujit/error.hpp"
#include "gpu/compile.hpp"
#include "gpu/generate.hpp"
#include "core/scalar.hpp"

// random.cuh's element functions come with plan/generator.hpp.

using namespace cujit;

namespace {

HostArray made(GeneratorSpec::Kind kind, DType t, std::int64_t n, std::uint64_t seed = 0) {
  HostArray a(t, Shape{n});
  GeneratorSpec s;
  s.kind = kind;
  s.seed = seed;
  generate_host(s, a.view());
  return a;
}

template <class T> std::vector<double> as_doubles(const HostArray& a) {
  std::vector<double> v(static_cast<std::size_t>(a.size()));
  for (std::size_t k = 0; k < v.size(); ++k) v[k] = static_cast<double>(scalar::widen(a.as<T>()[k]));
  return v;
}

void mean_var(const std::vector<double>& v, double& mean, double& var) {
  double s = 0, s2 = 0;
  for (double x : v) s += x;
  mean = s / static_cast<double>(v.size());
  for (double x : v) s2 += (x - mean) * (x - mean);
  var = s2 / static_cast<double>(v.size());
}

}  // namespace

TEST_CASE("Philox4x32-10 gives Random123's known answers", "[generate]") {
  // Random123's kat_vectors: counter (4 words), key (2 words), result.
  struct Kat {
    cj::gen::u32x4 ctr;
    cj_u32 k0, k1;
    cj::gen::u32x4 want;
  };
  const Kat kats[] = {
      {{{0, 0, 0, 0}}, 0, 0, {{0x6627e8d5u, 0xe169c58du, 0xbc57ac4cu, 0x9b00dbd8u}}},
      {{{0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu}}, 0xffffffffu, 0xffffffffu,
       {{0x408f276du, 0x41c83b0eu, 0xa20bc7c6u, 0x6d5451fdu}}},
      {{{0x243f6a88u, 0x85a308d3u, 0x13198a2eu, 0x03707344u}}, 0xa4093822u, 0x299f31d0u,
       {{0xd16cfe09u, 0x94fdccebu, 0x5001e420u, 0x24126ea1u}}},
  };
  for (const Kat& k : kats) {
    cj::gen::u32x4 got = cj::gen::philox4x32_10(k.ctr, k.k0, k.k1);
    for (int j = 0; j < 4; ++j) CHECK(got.v[j] == k.want.v[j]);
  }
  // Element k's counter is (k, k >> 32, 0, 0) and the key the seed's two halves.
  cj::gen::u32x4 a = cj::gen::bits_at(0x0000000500000007ull, 0x299f31d0a4093822ull);
  cj::gen::u32x4 b = cj::gen::philox4x32_10({{7u, 5u, 0u, 0u}}, 0xa4093822u, 0x299f31d0u);
  for (int j = 0; j < 4; ++j) CHECK(a.v[j] == b.v[j]);
}

TEST_CASE("the generators' own log and sincos are within 2 ulp of libm", "[generate]") {
  std::mt19937_64 rng(42);
  double worst_log = 0, worst_sin = 0, worst_cos = 0;
  for (int k = 0; k < 200000; ++k) {
    const std::uint64_t bits = rng();
    const double u = cj::gen::u01(bits) + 1.1102230246251565e-16;  // (0, 1], as randn draws it
    const double l = cj::gen::log_pos(u), ref = std::log(u);
    if (ref != 0) worst_log = std::max(worst_log, std::fabs(l - ref) / std::fabs(ref));
    else CHECK(l == 0.0);
    const double v = cj::gen::u01(rng());
    double s, c;
    cj::gen::sincos_2pi(v, &s, &c);
    // Absolute error against libm in long double: sin and cos of 2 pi v are
    // at most 1, and near their zeros the argument's own rounding dominates.
    const long double x = 2.0L * 3.14159265358979323846264338327950288L * static_cast<long double>(v);
    worst_sin = std::max(worst_sin, static_cast<double>(std::fabs(static_cast<long double>(s) - std::sin(x))));
    worst_cos = std::max(worst_cos, static_cast<double>(std::fabs(static_cast<long double>(c) - std::cos(x))));
  }
  CHECK(worst_log < 4.5e-16);  // 2 ulp
  CHECK(worst_sin < 4.5e-16);
  CHECK(worst_cos < 4.5e-16);
  // Exact points.
  double s, c;
  cj::gen::sincos_2pi(0.0, &s, &c);
  CHECK(s == 0.0);
  CHECK(c == 1.0);
  cj::gen::sincos_2pi(0.25, &s, &c);
  CHECK(s == 1.0);
  CHECK(c == 0.0);
  CHECK(cj::gen::log_pos(1.0) == 0.0);
  CHECK(cj::gen::log_pos(0.5) == -std::log(2.0));
}

TEST_CASE("generator conversions are the language's cast, bit for bit", "[generate]") {
  std::mt19937_64 rng(7);
  std::vector<double> values = {0.0, -0.0, 1.0, -1.0, 0.5, 1.5, 2.5, -2.5, 127.0, 128.0, -129.0, 255.9, 256.0, 65504.0,
                                65520.0, 1e5, 3e38, 4e38, 1e-8, 6e-8, 1e-40, -1e-45, 2147483647.5, 4294967296.0,
                                9.3e18, 1.9e19, -9.3e18, INFINITY, -INFINITY, NAN, -NAN, 1.0 + 1e-9, 0.1, 1.0 / 3.0};
  for (int k = 0; k < 20000; ++k) {
    std::uint64_t b = rng();
    double d;
    std::memcpy(&d, &b, 8);
    values.push_back(d);
    values.push_back(std::ldexp(static_cast<double>(b >> 11), static_cast<int>(rng() % 80) - 100));
  }
  auto same = [](const auto& a, const auto& b) { return std::memcmp(&a, &b, sizeof a) == 0; };
  for (double d : values) {
    CAPTURE(d);
    CHECK(same(cj::gen::conv<bool>::f(d), scalar::cast<bool>(d)));
    CHECK(same(cj::gen::conv<cj_i8>::f(d), scalar::cast<std::int8_t>(d)));
    CHECK(same(cj::gen::conv<cj_i16>::f(d), scalar::cast<std::int16_t>(d)));
    CHECK(same(cj::gen::conv<cj_i32>::f(d), scalar::cast<std::int32_t>(d)));
    CHECK(same(cj::gen::conv<cj_i64>::f(d), scalar::cast<std::int64_t>(d)));
    CHECK(same(cj::gen::conv<cj_u8>::f(d), scalar::cast<std::uint8_t>(d)));
    CHECK(same(cj::gen::conv<cj_u16>::f(d), scalar::cast<std::uint16_t>(d)));
    CHECK(same(cj::gen::conv<cj_u32>::f(d), scalar::cast<std::uint32_t>(d)));
    CHECK(same(cj::gen::conv<cj_u64>::f(d), scalar::cast<std::uint64_t>(d)));
    CHECK(cj::gen::conv<cj::gen::h16>::f(d).bits == scalar::cast<scalar::Half>(d).bits);
    CHECK(cj::gen::conv<cj::gen::b16>::f(d).bits == scalar::cast<scalar::BF16>(d).bits);
    CHECK(same(cj::gen::conv<float>::f(d), static_cast<float>(d)));
  }
}

TEST_CASE("rand and randn: statistics of 10^6 draws", "[generate]") {
  const std::int64_t n = 1000000;
  double mean, var;
  // Uniform on [0, 1): mean 1/2, variance 1/12; tolerances are 5 standard errors.
  for (DType t : {DType::Float64, DType::Float32, DType::Float16, DType::BFloat16}) {
    CAPTURE(dtype_name(t));
    HostArray a = made(GeneratorSpec::Rand, t, n, 3);
    std::vector<double> v = t == DType::Float64   ? as_doubles<double>(a)
                            : t == DType::Float32 ? as_doubles<float>(a)
                            : t == DType::Float16 ? as_doubles<scalar::Half>(a)
                                                  : as_doubles<scalar::BF16>(a);
    mean_var(v, mean, var);
    const double grid = t == DType::Float16 ? 1.0 / 2048 : t == DType::BFloat16 ? 1.0 / 256 : 0;
    CHECK(std::fabs(mean - (0.5 - grid / 2)) < 1.5e-3);
    CHECK(std::fabs(var - 1.0 / 12) < 1.5e-3);
    CHECK(*std::min_element(v.begin(), v.end()) >= 0.0);
    CHECK(*std::max_element(v.begin(), v.end()) < 1.0);
  }
  for (DType t : {DType::Float64, DType::Float32}) {
    CAPTURE(dtype_name(t));
    HostArray a = made(GeneratorSpec::Randn, t, n, 4);
    std::vector<double> v = t == DType::Float64 ? as_doubles<double>(a) : as_doubles<float>(a);
    mean_var(v, mean, var);
    CHECK(std::fabs(mean) < 5e-3);
    CHECK(std::fabs(var - 1.0) < 7e-3);
    // The tails of a normal: P(|z| > 2) = 0.0455, P(|z| > 3) = 0.0027.
    std::int64_t over2 = 0, over3 = 0;
    for (double x : v) over2 += std::fabs(x) > 2, over3 += std::fabs(x) > 3;
    CHECK(std::fabs(static_cast<double>(over2) / n - 0.0455) < 1.1e-3);
    CHECK(std::fabs(static_cast<double>(over3) / n - 0.0027) < 2.6e-4);
  }
  {  // complex: both parts standard normal, uncorrelated
    HostArray a = made(GeneratorSpec::Randn, DType::Complex128, n, 5);
    const auto* c = a.as<std::complex<double>>();
    std::vector<double> re(static_cast<std::size_t>(n)), im(static_cast<std::size_t>(n));
    double cov = 0;
    for (std::int64_t k = 0; k < n; ++k) re[k] = c[k].real(), im[k] = c[k].imag(), cov += c[k].real() * c[k].imag();
    mean_var(re, mean, var);
    CHECK(std::fabs(mean) < 5e-3);
    CHECK(std::fabs(var - 1.0) < 7e-3);
    mean_var(im, mean, var);
    CHECK(std::fabs(mean) < 5e-3);
    CHECK(std::fabs(var - 1.0) < 7e-3);
    CHECK(std::fabs(cov / n) < 5e-3);
  }
  {  // ints over their whole range; bool half true
    HostArray a = made(GeneratorSpec::Rand, DType::Int8, n, 6);
    std::vector<std::int64_t> count(256);
    for (std::int64_t k = 0; k < n; ++k) ++count[static_cast<std::size_t>(a.as<std::int8_t>()[k] + 128)];
    for (std::int64_t c : count) CHECK(std::abs(c - n / 256) < 5 * 62);  // sqrt(n/256) ~ 62
    HostArray b = made(GeneratorSpec::Rand, DType::Bool, n, 6);
    std::int64_t t = 0;
    for (std::int64_t k = 0; k < n; ++k) t += b.as<bool>()[k];
    CHECK(std::abs(t - n / 2) < 2500);  // 5 * sqrt(n)/2
    HostArray c = made(GeneratorSpec::Rand, DType::Int64, n, 6);
    std::int64_t lo = 0, hi = 0;
    for (std::int64_t k = 0; k < n; ++k) lo = std::min(lo, c.as<std::int64_t>()[k]), hi = std::max(hi, c.as<std::int64_t>()[k]);
    CHECK(lo >= -(std::int64_t{1} << 52));
    CHECK(hi < (std::int64_t{1} << 52));
    CHECK(lo < -(std::int64_t{1} << 51));
    CHECK(hi > (std::int64_t{1} << 51));
  }
}

TEST_CASE("rand and randn: element k depends on k and the seed alone", "[generate]") {
  for (GeneratorSpec::Kind kind : {GeneratorSpec::Rand, GeneratorSpec::Randn}) {
    HostArray a = made(kind, DType::Float64, 300000, 11);
    HostArray b = made(kind, DType::Float64, 300000, 11);
    HostArray c = made(kind, DType::Float64, 1000, 11);  // a prefix: the same values
    HostArray d = made(kind, DType::Float64, 1000, 12);
    CHECK(std::memcmp(a.data(), b.data(), a.nbytes()) == 0);
    CHECK(std::memcmp(a.data(), c.data(), c.nbytes()) == 0);
    std::int64_t same = 0;
    for (std::int64_t k = 0; k < 1000; ++k) same += a.as<double>()[k] == d.as<double>()[k];
    CHECK(same < 3);
  }
  // The float64 draw k is u01 of element k's first 64 bits.
  HostArray a = made(GeneratorSpec::Rand, DType::Float64, 5, 99);
  for (std::int64_t k = 0; k < 5; ++k) {
    cj::gen::u32x4 w = cj::gen::bits_at(static_cast<cj_u64>(k), 99);
    CHECK(a.as<double>()[k] == std::ldexp(static_cast<double>(cj::gen::join(w.v[0], w.v[1]) >> 11), -53));
  }
}

TEST_CASE("a generator's slice is the same elements of the whole array", "[generate]") {
  // jitrun --device all makes each GPU's rows where they are used (GeneratorSpec::first/whole).
  const std::int64_t n = 1000;
  for (GeneratorSpec::Kind kind : {GeneratorSpec::Rand, GeneratorSpec::Randn, GeneratorSpec::Arange,
                                   GeneratorSpec::Linspace, GeneratorSpec::Full}) {
    for (DType t : {DType::Float32, DType::Float64, DType::Float16, DType::Int32, DType::Complex64}) {
      if (kind == GeneratorSpec::Randn && t == DType::Int32) continue;
      CAPTURE(generator_name(kind), dtype_name(t));
      GeneratorSpec s;
      s.kind = kind;
      s.seed = 7;
      s.start = -3;
      s.stop = 2.5;
      s.value = 1.25;
      HostArray whole(t, Shape{n});
      generate_host(s, whole.view());
      const std::size_t item = dtype_size(t);
      for (auto [first, count] : {std::pair<std::int64_t, std::int64_t>{0, 1}, {1, 499}, {500, 500}, {999, 1}, {333, 0}}) {
        HostArray part(t, Shape{count});
        GeneratorSpec p = s;
        p.first = first;
        p.whole = n;
        generate_host(p, part.view());
        CHECK(std::memcmp(part.data(), static_cast<const char*>(whole.data()) + first * item, count * item) == 0);
      }
    }
  }
  GeneratorSpec s;
  s.kind = GeneratorSpec::Rand;
  s.first = 990;
  s.whole = 1000;
  HostArray a(DType::Float32, Shape{11});
  try {
    generate_host(s, a.view());
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Usage);
    CHECK(std::string(e.what()) == "generator slice of 11 elements from element 990 of 1000: past the array's end");
  }
}

TEST_CASE("arange, linspace, full, ones, zeros keep their values", "[generate]") {
  HostArray a = made(GeneratorSpec::Arange, DType::Int8, 300);
  CHECK(a.as<std::int8_t>()[5] == 5);
  CHECK(a.as<std::int8_t>()[200] == 127);  // the language's cast saturates
  HostArray f = made(GeneratorSpec::Arange, DType::Float16, 4000);
  CHECK(half_to_float(f.as<std::uint16_t>()[2049]) == 2048.0f);  // halfway: to the even one
  CHECK(half_to_float(f.as<std::uint16_t>()[2051]) == 2052.0f);
  HostArray l(DType::Float64, Shape{7});
  GeneratorSpec s;
  s.kind = GeneratorSpec::Linspace;
  s.start = -1;
  s.stop = 0.3;
  generate_host(s, l.view());
  const double step = 1.3 / 6;
  for (int k = 0; k < 6; ++k) CHECK(l.as<double>()[k] == -1 + k * step);
  CHECK(l.as<double>()[6] == 0.3);
  HostArray one(DType::Float64, Shape{1});
  s.stop = 5;
  generate_host(s, one.view());
  CHECK(one.as<double>()[0] == -1.0);
  for (DType t : {DType::Bool, DType::Int16, DType::UInt64, DType::Float16, DType::BFloat16, DType::Complex64, DType::Complex128}) {
    CAPTURE(dtype_name(t));
    HostArray x(t, Shape{3, 5});
    s = GeneratorSpec{};
    s.kind = GeneratorSpec::Full;
    s.value = -2.75;
    generate_host(s, x.view());
    scalar::visit(t, [&](auto z) {
      auto want = scalar::cast<decltype(z)>(-2.75);
      for (std::int64_t k = 0; k < x.size(); ++k) CHECK(std::memcmp(static_cast<char*>(x.data()) + k * sizeof want, &want, sizeof want) == 0);
    });
    s.kind = GeneratorSpec::Ones;
    generate_host(s, x.view());
    scalar::visit(t, [&](auto z) {
      auto want = scalar::cast<decltype(z)>(1.0);
      CHECK(std::memcmp(static_cast<char*>(x.data()) + 14 * sizeof want, &want, sizeof want) == 0);
    });
  }
}

TEST_CASE("generator errors", "[generate]") {
  HostArray a(DType::Int32, Shape{4});
  GeneratorSpec s;
  s.kind = GeneratorSpec::Randn;
  try {
    generate_host(s, a.view());
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Usage);
    CHECK(std::string(e.what()) == "randn needs a float or complex dtype, got int32");
  }
  HostArray empty(DType::Float32, Shape{0});
  s.kind = GeneratorSpec::Rand;
  generate_host(s, empty.view());  // nothing to do
  CHECK_THROWS_AS(generate_device(s, a.view()), Error);  // host memory
}

TEST_CASE("every generator's fill kernel compiles with NVRTC", "[generate][nvrtc]") {
  // No GPU needed: an sm_90 cubin. One kernel per family and element type.
  const DType all[] = {DType::Bool,    DType::Int8,     DType::Int16,   DType::Int32,     DType::Int64,
                       DType::UInt8,   DType::UInt16,   DType::UInt32,  DType::UInt64,    DType::Float16,
                       DType::BFloat16, DType::Float32, DType::Float64, DType::Complex64, DType::Complex128};
  for (DType t : all)
    for (auto kind : {GeneratorSpec::Full, GeneratorSpec::Arange, GeneratorSpec::Rand, GeneratorSpec::Randn}) {
      if (kind == GeneratorSpec::Randn && (is_integer(t) || is_bool(t))) continue;
      if (kind == GeneratorSpec::Full && t != DType::Int8 && t != DType::Float16 && t != DType::Float32 &&
          t != DType::Float64 && t != DType::Complex128)
        continue;  // one pattern kernel per element size
      CAPTURE(generator_name(kind), dtype_name(t));
      const std::string src = generator_source(kind, t);
      const std::size_t at = src.find("void ") + 5;
      CompiledKernel k = compile_cuda(src, src.substr(at, src.find('(', at) - at), CompileOptions{90, false, {}});
      CHECK(!k.cubin.empty());
    }
}

// format_array against what NumPy prints (tests/data/format/cases.txt, made by
// make_format.py with numpy 2.4).
#include <cstdint>
#include <cstring>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "catch.hpp"
#include "cujit/error.hpp"
#include "io/format.hpp"
#include "core/half.hpp"

using namespace cujit;

namespace {

struct FormatCase {
  std::string name;
  HostArray array;
  std::string expected;
};

// Element i of numpy.arange(n) * scale cast to `t` (the real part for complex).
void store_arange(HostArray& a, double scale) {
  auto* p = static_cast<char*>(a.data());
  const std::size_t item = dtype_size(a.dtype());
  for (std::int64_t i = 0; i < a.size(); ++i, p += item) {
    double v = static_cast<double>(i) * scale;
    auto put = [&](auto x) { std::memcpy(p, &x, sizeof x); };
    // Integers wrap as NumPy's astype does from int64.
    auto wrapped = static_cast<std::uint64_t>(static_cast<std::int64_t>(v));
    switch (a.dtype()) {
      case DType::Bool: put(static_cast<std::uint8_t>(v != 0)); break;
      case DType::Int8: case DType::UInt8: put(static_cast<std::uint8_t>(wrapped)); break;
      case DType::Int16: case DType::UInt16: put(static_cast<std::uint16_t>(wrapped)); break;
      case DType::Int32: case DType::UInt32: put(static_cast<std::uint32_t>(wrapped)); break;
      case DType::Int64: case DType::UInt64: put(wrapped); break;
      case DType::Float16: put(float_to_half(static_cast<float>(v))); break;
      case DType::BFloat16: put(float_to_bfloat16(static_cast<float>(v))); break;
      case DType::Float32: put(static_cast<float>(v)); break;
      case DType::Float64: put(v); break;
      case DType::Complex64: put(static_cast<float>(v)); std::memset(p + 4, 0, 4); break;
      case DType::Complex128: put(v); std::memset(p + 8, 0, 8); break;
    }
  }
}

std::vector<FormatCase> load_cases() {
  std::ifstream f(std::string(CUJIT_TEST_DATA) + "/format/cases.txt");
  REQUIRE(f);
  std::vector<FormatCase> out;
  std::string line;
  std::vector<std::string> text;
  auto finish = [&] {
    if (out.empty()) return;
    std::string s;
    for (std::size_t k = 0; k < text.size(); ++k) s += (k ? "\n" : "") + text[k];
    out.back().expected = s;
    text.clear();
  };
  while (std::getline(f, line)) {
    if (line.rfind("# ", 0) == 0 && out.empty()) continue;
    if (line.rfind("@@ ", 0) != 0) {
      text.push_back(line);
      continue;
    }
    finish();
    std::istringstream in(line.substr(3));
    std::string name, dtype, shape_text, data;
    in >> name >> dtype >> shape_text >> data;
    auto t = dtype_from_name(dtype);
    REQUIRE(t);
    Shape shape;
    std::istringstream ds(shape_text.substr(1, shape_text.size() - 2));
    for (std::string d; std::getline(ds, d, ',');) shape[shape.ndim++] = std::stoll(d);
    HostArray a(*t, shape);
    if (data.rfind("arange*", 0) == 0) {
      store_arange(a, std::stod(data.substr(7)));
    } else if (data != "-") {
      REQUIRE(data.size() == 2 * a.nbytes());
      auto* p = static_cast<unsigned char*>(a.data());
      for (std::size_t k = 0; k < a.nbytes(); ++k)
        p[k] = static_cast<unsigned char>(std::stoi(data.substr(2 * k, 2), nullptr, 16));
    }
    out.push_back({name, std::move(a), ""});
  }
  finish();
  return out;
}

}  // namespace

TEST_CASE("format_array prints every golden array exactly as NumPy does") {
  auto cases = load_cases();
  REQUIRE(cases.size() >= 140);
  for (const auto& c : cases) {
    INFO(c.name);
    CHECK(format_array(c.array.view()) == c.expected);
  }
}

TEST_CASE("format_array prints strided views as NumPy prints the same views") {
  std::map<std::string, FormatCase> cases;
  for (auto& c : load_cases()) cases.emplace(c.name, std::move(c));
  const ArrayView& base = cases.at("f64_2d").array.view();  // shape (2, 3)
  char* data = static_cast<char*>(base.data);

  ArrayView transposed = base;
  transposed.shape = Shape{3, 2};
  transposed.strides = Shape{base.strides[1], base.strides[0]};
  CHECK(format_array(transposed) == cases.at("f64_2d_transposed").expected);

  ArrayView reversed = base;  // [::-1, ::-2]
  reversed.data = data + base.strides[0] + 2 * base.strides[1];
  reversed.shape = Shape{2, 2};
  reversed.strides = Shape{-base.strides[0], -2 * base.strides[1]};
  CHECK(format_array(reversed) == cases.at("f64_2d_reversed").expected);

  ArrayView broadcast = base;  // row 1 repeated three times
  broadcast.data = data + base.strides[0];
  broadcast.shape = Shape{3, 3};
  broadcast.strides = Shape{0, base.strides[1]};
  CHECK(format_array(broadcast) == cases.at("f64_2d_broadcast").expected);
}

TEST_CASE("bfloat16 prints as a NumPy float type of its precision would") {
  // NumPy cannot produce these (ml_dtypes prints elements with "%g"); they
  // follow NumPy's rules with bfloat16's shortest round-trip digits and a
  // positional limit of 10**finfo(bfloat16).precision = 100.
  struct Case {
    std::vector<float> values;  // rounded to bfloat16
    Shape shape;
    const char* expected;
  };
  const Case cases[] = {
      {{1.0f, 2.5f, 0.1f, -7.0f}, Shape{4}, "[ 1.   2.5  0.1 -7. ]"},
      {{100.0f, 1.0f}, Shape{2}, "[1.e+02 1.e+00]"},
      {{99.0f, 1.0f}, Shape{2}, "[99.  1.]"},
      {{1.0f / 3, 0.2f}, Shape{2}, "[0.334 0.2  ]"},
      {{3.0e38f, -1e-30f}, Shape{2}, "[ 3.e+38 -1.e-30]"},
      {{0.0f, -0.0f, 1.0f / 0.0f}, Shape{3}, "[ 0. -0. inf]"},
      {{0.1f}, Shape{}, "0.1"},
      {{300.0f}, Shape{}, "3e+02"},
      {{1.0f / 3}, Shape{}, "0.334"},
      {{-2.0f}, Shape{}, "-2.0"},
      {{1e-5f}, Shape{}, "1e-05"},
  };
  for (const auto& c : cases) {
    INFO(c.expected);
    HostArray a(DType::BFloat16, c.shape);
    for (std::size_t k = 0; k < c.values.size(); ++k) a.as<std::uint16_t>()[k] = float_to_bfloat16(c.values[k]);
    CHECK(format_array(a.view()) == c.expected);
  }
}

TEST_CASE("format_array refuses views it cannot read") {
  HostArray a(DType::Float32, Shape{2});
  ArrayView v = a.view();
  v.device = Device{Device::CUDA, 0};
  try {
    format_array(v);
    FAIL("no error");
  } catch (const Error& e) {
    CHECK(e.code() == ErrorCode::Data);
    CHECK(std::string(e.what()) == "cannot print an array on a CUDA device; copy it to the host first");
  }
}

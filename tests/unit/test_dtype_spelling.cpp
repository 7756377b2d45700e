// NumPy's dtype spellings (dtype_from_numpy) and the message for anything else.
#include <string>

#include "catch.hpp"
#include "cujit/dtype.hpp"

using namespace cujit;

TEST_CASE("dtype_from_numpy takes what np.dtype takes on 64-bit Linux") {
  // np.dtype(s).name for each s, checked with NumPy 2.4.
  const std::pair<const char*, DType> cases[] = {
      {"float32", DType::Float32}, {"f4", DType::Float32},       {"<f4", DType::Float32},
      {"=f4", DType::Float32},     {"|f4", DType::Float32},      {"np.float32", DType::Float32},
      {"numpy.float32", DType::Float32}, {"single", DType::Float32}, {"float", DType::Float64},
      {"double", DType::Float64},  {"f8", DType::Float64},       {"<f8", DType::Float64},
      {"half", DType::Float16},    {"f2", DType::Float16},       {"bfloat16", DType::BFloat16},
      {"i8", DType::Int64},        {"int", DType::Int64},        {"long", DType::Int64},
      {"int_", DType::Int64},      {"intp", DType::Int64},       {"np.int64", DType::Int64},
      {"intc", DType::Int32},      {"i4", DType::Int32},         {"short", DType::Int16},
      {"byte", DType::Int8},       {"i1", DType::Int8},          {"u1", DType::UInt8},
      {"ubyte", DType::UInt8},     {"|u1", DType::UInt8},        {"uint", DType::UInt64},
      {"uintp", DType::UInt64},    {"u8", DType::UInt64},        {"ushort", DType::UInt16},
      {"uintc", DType::UInt32},    {"c16", DType::Complex128},   {"complex", DType::Complex128},
      {"cdouble", DType::Complex128}, {"c8", DType::Complex64},  {"csingle", DType::Complex64},
      {"bool", DType::Bool},       {"b1", DType::Bool},          {"bool_", DType::Bool},
      {"np.bool", DType::Bool},    {"np.bool_", DType::Bool},    {"np.uint8", DType::UInt8},
  };
  for (const auto& [s, want] : cases) {
    INFO(s);
    auto t = dtype_from_numpy(s);
    REQUIRE(t);
    CHECK(*t == want);
  }
  for (int k = 0; k < kNumDTypes; ++k) {
    auto t = static_cast<DType>(k);
    CHECK(dtype_from_numpy(dtype_name(t)) == t);
  }
}

TEST_CASE("dtype_from_numpy refuses one-letter codes, big-endian and what NumPy 2 lacks") {
  for (const char* s : {"f", "d", "T", "?", "", ">f4", "np.float", "np.int", "np.complex", "float128", "longdouble",
                        "F4", "Float32", "f3", "np.", "float32 "}) {
    INFO(s);
    CHECK_FALSE(dtype_from_numpy(s));
  }
}

TEST_CASE("a spelling that names no dtype gets a did-you-mean and the list of dtypes") {
  const std::string list = "the dtypes are bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16, "
                           "bfloat16, float32, float64, complex64, complex128 (NumPy's spellings work too: f4, <f8, "
                           "i8, u1, c16, float, double, np.float32)";
  CHECK(dtype_spelling_problem("flaot32") == "unknown dtype 'flaot32' (did you mean 'float32'?); " + list);
  CHECK(dtype_spelling_problem("Float32") == "unknown dtype 'Float32' (did you mean 'float32'?); " + list);
  CHECK(dtype_spelling_problem("complx64") == "unknown dtype 'complx64' (did you mean 'complex64'?); " + list);
  CHECK(dtype_spelling_problem("flt") == "unknown dtype 'flt'; " + list);
  CHECK(dtype_spelling_problem("blah") == "unknown dtype 'blah'; " + list);
  CHECK(dtype_spelling_problem(">f4") ==
        "'>f4' is big-endian: cujit arrays are little-endian, write '<f4' (a big-endian .npy file is converted when "
        "it is read)");
  CHECK(dtype_spelling_problem("longdouble") == "'longdouble' has no cujit dtype: the widest are float64 and complex128");
  CHECK(dtype_spelling_problem("d") ==
        "unknown dtype 'd': NumPy's one-letter codes are not taken (a single letter is a placeholder such as T); "
        "write the name, e.g. float32 or f4");
}

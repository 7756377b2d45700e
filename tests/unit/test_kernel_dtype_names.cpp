// ElementwiseKernel parameter types in NumPy's spellings: `f4 x` is float32,
// never a placeholder that would let the output come out float64.
#include <string>

#include "catch.hpp"
#include "cujit/elementwise.hpp"
#include "cujit/error.hpp"
#include "unit/error_of.hpp"

using namespace cujit;
using test::error_of;

TEST_CASE("NumPy's spellings name dtypes in kernel parameters", "[api][elementwise]") {
  HostArray x(DType::Float32, {3});
  for (int k = 0; k < 3; ++k) x.as<float>()[k] = static_cast<float>(k) + 0.5f;
  for (const char* t : {"f4", "<f4", "np.float32", "numpy.float32", "single", "float32"}) {
    INFO(t);
    ElementwiseKernel k(std::string(t) + " x", std::string(t) + " y", "y = x * 2", "twice");
    Array y = k(x.view())[0];
    CHECK(y.dtype() == DType::Float32);
    CHECK(y.as<float>()[2] == 5.0f);
  }
  // A float64 array is refused for an f4 parameter, as for float32: the parameter has a dtype.
  HostArray d(DType::Float64, {3});
  ElementwiseKernel k("f4 x", "f8 y", "y = x", "k");
  CHECK(error_of([&] { k(d.view()); }, ErrorCode::Data).find("float32") != std::string::npos);
  ElementwiseKernel u("u1 x, i8 n2", "c16 z", "z = x + n2", "k2");
  HostArray b(DType::UInt8, {2});
  b.as<std::uint8_t>()[0] = 200, b.as<std::uint8_t>()[1] = 3;
  Array z = u(b.view(), 7)[0];
  CHECK(z.dtype() == DType::Complex128);
}

TEST_CASE("C's ambiguous names stay refused in kernel parameters; other bad spellings are explained",
          "[api][elementwise]") {
  auto msg = [](const std::string& in) {
    return error_of([&] { ElementwiseKernel(in, "T y", "y = x", "k"); }, ErrorCode::Usage);
  };
  CHECK(msg("float x") == "in_params: the type 'float' of 'x' is ambiguous; name the dtype, e.g. float32 or float64");
  CHECK(msg(">f4 x") ==
        "in_params: the type of 'x': '>f4' is big-endian: cujit arrays are little-endian, write '<f4' (a big-endian "
        ".npy file is converted when it is read)");
  CHECK(msg("np.float x").rfind("in_params: the type of 'x': unknown dtype 'np.float'", 0) == 0);
  // One letter is a placeholder, as in CuPy (NumPy's 'f' and 'd' codes are not dtypes here).
  for (const char* ph : {"f", "d", "Q", "T"})
    CHECK_NOTHROW(ElementwiseKernel(std::string(ph) + " x", std::string(ph) + " y", "y = x", "k"));
}

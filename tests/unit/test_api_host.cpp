// The API as an application uses it, without a GPU: views of its own host
// memory, outputs by name, ElementwiseKernel on host arrays (the CPU
// evaluator), and parameter types that are typos of a dtype.
#include <complex>
#include <cstdint>
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "cujit/elementwise.hpp"
#include "cujit/error.hpp"
#include "cujit/evaluate.hpp"
#include "core/driver.hpp"
#include "unit/error_of.hpp"

using namespace cujit;

namespace {

using test::error_of;

std::vector<float> random_floats(std::size_t n, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<float> d(-10.0f, 10.0f);
  std::vector<float> v(n);
  for (float& x : v) x = d(rng);
  return v;
}

}  // namespace

static_assert(dtype_of<float> == DType::Float32);
static_assert(dtype_of<double> == DType::Float64);
static_assert(dtype_of<std::int8_t> == DType::Int8);
static_assert(dtype_of<std::int64_t> == DType::Int64);
static_assert(dtype_of<long long> == DType::Int64);
static_assert(dtype_of<std::uint64_t> == DType::UInt64);
static_assert(dtype_of<unsigned long long> == DType::UInt64);
static_assert(dtype_of<bool> == DType::Bool);
static_assert(dtype_of<std::complex<float>> == DType::Complex64);

TEST_CASE("ArrayView::host wraps the caller's memory in one call, strides derived", "[api]") {
  std::vector<float> v(6, 1.5f);
  ArrayView x = ArrayView::host(v.data(), {v.size()});  // a size_t extent: no narrowing error
  CHECK(x.data == v.data());
  CHECK(x.dtype == DType::Float32);
  CHECK(x.shape == Shape{6});
  CHECK(x.strides == Shape{4});
  CHECK(x.device == Device::cpu());

  std::size_t rows = 2, cols = 3;
  const std::vector<double>& cv = std::vector<double>(6);
  ArrayView m = ArrayView::host(cv.data(), Shape{rows, cols});  // a const pointer: an input view
  CHECK(m.dtype == DType::Float64);
  CHECK(m.shape == Shape{2, 3});
  CHECK(m.strides == Shape{24, 8});
  CHECK(m.is_c_contiguous());

  std::vector<std::complex<double>> c(4);
  CHECK(ArrayView::host(c.data(), {2, 2}).strides == Shape{32, 16});
  std::vector<std::uint16_t> halves(8);
  ArrayView h = ArrayView::host(halves.data(), DType::Float16, {8u});
  CHECK(h.dtype == DType::Float16);
  CHECK(h.strides == Shape{2});
  ArrayView d = ArrayView::cuda(reinterpret_cast<float*>(0x1000), {std::int64_t{4}}, 1);
  CHECK(d.device == Device::cuda(1));

  CHECK(error_of([] { ArrayView::host(static_cast<float*>(nullptr), {3}); }, ErrorCode::Usage) ==
        "a view of 3 elements needs memory: the pointer is null");
  CHECK(ArrayView::host(static_cast<float*>(nullptr), {0}).size() == 0);
  CHECK(error_of([&] { ArrayView::host(v.data(), {2, -3}); }, ErrorCode::Data) ==
        "negative extent -3 in array shape (2, -3)");
}

TEST_CASE("ElementwiseKernel runs on host arrays through the CPU evaluator", "[api][elementwise]") {
  // This machine may have no driver at all: a host call never asks for one.
  INFO("GPU: " << (gpu_available() ? "yes" : gpu_unavailable_reason()));
  const std::size_t n = 1000;
  std::vector<float> x = random_floats(n, 1), y = random_floats(n, 2);
  ElementwiseKernel axpy("T x, T y, float32 a", "T z", "z = a * x + y", "axpy");

  OutputArrays out = axpy(ArrayView::host(x.data(), {n}), ArrayView::host(y.data(), {n}), 2.5);
  REQUIRE(out.size() == 1);
  const Array& z = out["z"];
  CHECK(&z == &out[0]);
  CHECK(z.device() == Device::cpu());
  CHECK(z.dtype() == DType::Float32);
  CHECK(z.shape() == Shape{n});
  for (std::size_t k = 0; k < n; ++k) {
    INFO(k);
    CHECK(z.as<float>()[k] == 2.5f * x[k] + y[k]);
  }

  // Given outputs in host memory, strided: every other element of a buffer.
  std::vector<float> buf(2 * n, -1.0f);
  ArrayView every2 = ArrayView::host(buf.data(), {n});
  every2.strides = Shape{8};
  CHECK(axpy(ArrayView::host(x.data(), {n}), ArrayView::host(y.data(), {n}), 0.5, every2).empty());
  for (std::size_t k = 0; k < n; ++k) {
    INFO(k);
    CHECK(buf[2 * k] == 0.5f * x[k] + y[k]);
    CHECK(buf[2 * k + 1] == -1.0f);
  }

  // In place, as on the GPU: the output is exactly an input.
  std::vector<float> w = x;
  ArrayView wv = ArrayView::host(w.data(), {n});
  axpy(wv, ArrayView::host(y.data(), {n}), 3.0, wv);
  for (std::size_t k = 0; k < n; ++k) CHECK(w[k] == 3.0f * x[k] + y[k]);
  // Any other overlap is refused with the GPU's message.
  ArrayView shifted = ArrayView::host(w.data() + 1, {n - 1});
  ArrayView head = ArrayView::host(w.data(), {n - 1});
  CHECK(error_of([&] { axpy(head, head, 1.0, shifted); }, ErrorCode::Usage) ==
        "output 'z' overlaps input 'x' other than element for element (only exactly in place, the same view, is "
        "allowed); write to a new array");
}

TEST_CASE("ElementwiseKernel on host arrays: integers, broadcasting, raw parameters, checks", "[api][elementwise]") {
  std::mt19937_64 rng(7);
  std::uniform_int_distribution<std::int32_t> d(-1000, 1000);
  std::vector<std::int32_t> a(3), b(4);
  for (auto& v : a) v = d(rng);
  for (auto& v : b) v = d(rng);
  ElementwiseKernel k("T x, T y", "T z, bool big", "z = x * y + 3\nbig = z > 0", "mul");
  auto out = k(ArrayView::host(a.data(), {3, 1}), ArrayView::host(b.data(), {4}));
  const Array& z = out["z"];
  REQUIRE(z.shape() == Shape{3, 4});
  CHECK(z.dtype() == DType::Int32);
  CHECK(out["big"].dtype() == DType::Bool);
  for (int i = 0; i < 3; ++i)
    for (int j = 0; j < 4; ++j) {
      CHECK(z.as<std::int32_t>()[i * 4 + j] == a[i] * b[j] + 3);
      CHECK(out["big"].as<bool>()[i * 4 + j] == (a[i] * b[j] + 3 > 0));
    }
  CHECK(out.contains("big"));
  CHECK_FALSE(out.contains("zz"));
  CHECK(error_of([&] { (void)out["zz"]; }, ErrorCode::Usage) == "the kernel has no output 'zz' (its outputs: 'z', 'big')");

  // Weak and typed scalars follow NEP 50 on the host as on the GPU.
  std::vector<std::int8_t> k8 = {1, -2, 100};
  ElementwiseKernel mix("T x, U a", "V z", "z = x + a", "mix");
  auto w = mix(ArrayView::host(k8.data(), {3}), 2.5);
  CHECK(w["z"].dtype() == DType::Float64);
  CHECK(w["z"].as<double>()[1] == 0.5);
  auto w8 = mix(ArrayView::host(k8.data(), {3}), 100);
  CHECK(w8["z"].dtype() == DType::Int8);
  CHECK(w8["z"].as<std::int8_t>()[2] == -56);  // int8 wraps, as NumPy's
  auto w16 = mix(ArrayView::host(k8.data(), {3}), Arg::typed(DType::Int16, 100));
  CHECK(w16["z"].dtype() == DType::Int16);
  CHECK(w16["z"].as<std::int16_t>()[2] == 200);

  // A raw parameter, the output shape from CallOptions.
  std::vector<double> src = {1, 2, 3, 4, 5};
  ElementwiseKernel rev("raw T x", "T y", "y = x[n - 1 - i]", "reverse");
  CallOptions co;
  co.shape = Shape{5};
  Arg args[] = {ArrayView::host(src.data(), {5})};
  auto r = rev.call(args, 1, co);
  for (int q = 0; q < 5; ++q) CHECK(r["y"].as<double>()[q] == src[static_cast<std::size_t>(4 - q)]);
  // Run-time errors the GPU kernel would report come from the evaluator.
  CHECK(error_of([&] { rev.call(args, 1, [] { CallOptions c; c.shape = Shape{6}; return c; }()); }, ErrorCode::Data)
            .find("out of bounds") != std::string::npos);

  // Shapes and dtypes are checked as on the GPU.
  std::vector<std::int32_t> z5(5);
  CHECK(error_of([&] { k(ArrayView::host(a.data(), {3}), ArrayView::host(a.data(), {3}), ArrayView::host(z5.data(), {5}),
                         ArrayView::host(reinterpret_cast<bool*>(z5.data()), {5})); },
                 ErrorCode::Data) == "output 'z' has shape (5,), but the inputs broadcast to (3,)");
  // Raw CUDA needs a GPU; mixing host outputs with device inputs is refused before any device work.
  ElementwiseOptions raw;
  raw.raw_cuda = true;
  ElementwiseKernel rk("T x", "T y", "y = x;", "rawk", raw);
  CHECK(error_of([&] { rk(ArrayView::host(src.data(), {5})); }, ErrorCode::Usage) ==
        "kernel 'rawk' is raw CUDA code, which runs only on a GPU: pass arrays in CUDA device memory");
  ElementwiseKernel copy("T x", "T y", "y = x", "copy");
  std::vector<double> host_out(5);
  CHECK(error_of([&] { copy(ArrayView::cuda(reinterpret_cast<double*>(0x1000), {5}), ArrayView::host(host_out.data(), {5})); },
                 ErrorCode::Usage) ==
        "kernel 'copy': output 'y' is in host memory, but the call runs on CUDA device 0; give all arrays in device "
        "memory, or all in host memory (the CPU evaluator)");
  // Outputs the caller gave are not returned.
  auto none = copy(ArrayView::host(src.data(), {5}), ArrayView::host(host_out.data(), {5}));
  CHECK(none.empty());
  CHECK(host_out == src);
  CHECK(error_of([&] { (void)none["y"]; }, ErrorCode::Usage) == "no output 'y': the call allocated none (its outputs were given)");
}

TEST_CASE("ElementwiseKernel: a missing driver is reported only when the call needs a GPU", "[api][elementwise]") {
  if (gpu_available()) return;  // the machine has a GPU: nothing to show here
  ElementwiseKernel copy("T x", "T y", "y = x", "copy");
  std::vector<float> h(4, 1.0f);
  CHECK(copy(ArrayView::host(h.data(), {4}))["y"].as<float>()[3] == 1.0f);
  ArrayView fake = ArrayView::cuda(reinterpret_cast<float*>(0x1000), {4});
  CHECK(error_of([&] { copy(fake, fake); }, ErrorCode::Device).find(gpu_unavailable_reason()) != std::string::npos);
}

TEST_CASE("evaluate: outputs by name", "[api][evaluate]") {
  std::vector<float> x = {1, 2, 3};
  NamedArrays outs = evaluate("y = x * 2\nz = x * 2 + 1", {{"x", ArrayView::host(x.data(), {3})}});
  CHECK(outs["z"].as<float>()[2] == 7.0f);
  CHECK(outs["y"].as<float>()[0] == 2.0f);
  CHECK(outs[0].name == "y");
  CHECK(outs.contains("z"));
  CHECK(error_of([&] { (void)outs["w"]; }, ErrorCode::Usage) == "the program has no output 'w' (its outputs: 'y', 'z')");
}

// run_pipeline keeps the last program a thread ran and reuses it for the same
// text, names, dtypes, weakness and declared outputs: each call below changes
// one of them after the same call, and must get its own program.
TEST_CASE("evaluate: a repeated call reuses its program; a change in any part of the request does not", "[api][evaluate]") {
  std::vector<float> xf = {1.5f, 2.5f, -3.5f};
  std::vector<std::int32_t> xi = {1, 2, -3};
  std::vector<double> xd = {1.5, 2.5, -3.5};
  const ArrayView f32 = ArrayView::host(xf.data(), {3}), i32 = ArrayView::host(xi.data(), {3}),
                  f64 = ArrayView::host(xd.data(), {3});
  for (int round = 0; round < 2; ++round) {
    NamedArrays a = evaluate("out = x * 2", {{"x", f32}});
    CHECK(a["out"].dtype() == DType::Float32);
    CHECK(a["out"].as<float>()[2] == -7.0f);
    NamedArrays again = evaluate("out = x * 2", {{"x", f32}});
    CHECK(again["out"].as<float>()[1] == 5.0f);
    NamedArrays b = evaluate("out = x * 2", {{"x", i32}});  // another dtype
    CHECK(b["out"].dtype() == DType::Int32);
    CHECK(b["out"].as<std::int32_t>()[2] == -6);
    NamedArrays c = evaluate("out = x * 2", {{"x", 2.5}});  // a weak scalar
    CHECK(c["out"].dtype() == DType::Float64);
    NamedArrays d = evaluate("out = x * 2", {{"x", Arg::typed(DType::Float32, 2.5)}});  // a strong one
    CHECK(d["out"].dtype() == DType::Float32);
    EvaluateOptions o;
    o.output_dtypes = {{"out", DType::Float64}};
    NamedArrays e = evaluate("out = x * 2", {{"x", f32}}, o);  // a declared output
    CHECK(e["out"].dtype() == DType::Float64);
    NamedArrays f = evaluate("out = x * 3", {{"x", f64}});  // another text
    CHECK(f["out"].as<double>()[0] == 4.5);
    CHECK(error_of([&] { evaluate("out = y * 3", {{"x", f64}}); }, ErrorCode::Program).find("'y'") != std::string::npos);
    NamedArrays g = evaluate("out = y * 3", {{"y", f64}});  // another name
    CHECK(g["out"].as<double>()[1] == 7.5);
    CHECK(error_of([&] { evaluate("out = y * 3", {{"1y", f64}}); }, ErrorCode::Usage).find("1y") != std::string::npos);
  }
}

TEST_CASE("a parameter type within a typo of a dtype is an error, not a placeholder", "[api][elementwise]") {
  auto msg = [](const std::string& in, const std::string& out) {
    return error_of([&] { ElementwiseKernel(in, out, "y = x", "k"); }, ErrorCode::Usage);
  };
  CHECK(msg("flaot32 x", "float32 y") ==
        "in_params: the type 'flaot32' of 'x' is not a dtype; did you mean 'float32'? (a placeholder name must not be "
        "this close to a dtype name)");
  CHECK(msg("float32 x", "Float64 y") ==
        "out_params: the type 'Float64' of 'y' is not a dtype; did you mean 'float64'? (a placeholder name must not be "
        "this close to a dtype name)");
  CHECK(msg("in64 x", "T y").find("did you mean 'int64'?") != std::string::npos);
  CHECK(msg("doubel x", "T y").find("did you mean 'double'?") != std::string::npos);
  CHECK(msg("uint8_t x", "T y").find("did you mean 'uint8'?") != std::string::npos);
  CHECK(msg("uint x", "T y") == "in_params: the type 'uint' of 'x' is ambiguous; name the dtype, e.g. uint32 or uint64");
  CHECK(msg("complex x", "T y") ==
        "in_params: the type 'complex' of 'x' is ambiguous; name the dtype, e.g. complex64 or complex128");
  // Placeholders far from every dtype name stay placeholders.
  for (const char* ph : {"T", "U", "In", "Out", "TT", "Tin", "Scalar", "Real", "Elem"})
    CHECK_NOTHROW(ElementwiseKernel(std::string(ph) + " x", std::string(ph) + " y", "y = x", "k"));
}

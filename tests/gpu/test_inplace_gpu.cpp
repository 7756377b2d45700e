// In-place updates on the GPU through the public API: evaluate() on device
// arrays (updated where they are), on host arrays run on the GPU (copied there
// and back), on a strided device view; ElementwiseKernel with an operation
// that assigns an input; refusals before any launch; a failing program leaves
// the array as it was. Every result is compared with the CPU evaluator (which
// tests/data/eval_cases.txt ties to NumPy); the in-place reference cases run
// in every layout in test_reference_gpu.cpp.
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <random>
#include <string>
#include <vector>

#include "catch.hpp"
#include "cujit/elementwise.hpp"
#include "cujit/error.hpp"
#include "cujit/evaluate.hpp"
#include "gpu_util.hpp"
#include "unit/reference.hpp"
#include "unit/error_of.hpp"

using namespace cujit;
using namespace cujit::gputest;

namespace {

using test::error_of;

HostArray random_f64(const Shape& s, std::uint64_t seed) {
  HostArray a(DType::Float64, s);
  std::mt19937_64 rng(seed ^ run_seed());
  std::uniform_real_distribution<double> d(-10.0, 10.0);
  for (std::int64_t k = 0; k < a.size(); ++k) a.as<double>()[k] = d(rng);
  return a;
}

HostArray copy(const HostArray& h) {
  HostArray c(h.dtype(), h.shape());
  std::memcpy(c.data(), h.data(), h.nbytes());
  return c;
}

// The CPU evaluator's result of `program` updating x (and reading y, if given).
HostArray cpu_updated(const std::string& program, const HostArray& x, const HostArray* y = nullptr) {
  HostArray c = copy(x);
  std::vector<NamedArg> in = {{"x", c.view()}};
  if (y) in.push_back({"y", y->view()});
  EvaluateOptions o;
  o.device = Device::cpu();
  evaluate(program, in, o);
  return c;
}

void require_same(const ArrayView& got_view, const HostArray& want) {
  Array got = Array::copy_of(got_view, Device::cpu());
  REQUIRE(got.shape() == want.shape());
  std::string why;
  const bool ok = ref::values_match(want.dtype(), got.data(), want.data(), want.size(), 0, &why);
  INFO(why);
  REQUIRE(ok);
}

const char* const kSeed = "x *= 5; x *= x; x += x";

}  // namespace

TEST_CASE("in place on the GPU: evaluate() updates a device array where it is", "[gpu][inplace]") {
  HostArray h = random_f64({100'003}, 1);
  Array x = Array::copy_of(h.view(), Device::cuda(0));
  const void* where = x.data();
  NamedArrays outs = evaluate(kSeed, {{"x", x}});
  CHECK(outs.empty());
  CHECK(outs.updated == std::vector<std::string>{"x"});
  CHECK(x.data() == where);
  require_same(x.view(), cpu_updated(kSeed, h));

  // With another output that reads the new value, and one read before.
  HostArray hy = random_f64({100'003}, 2);
  Array y = Array::copy_of(hy.view(), Device::cuda(0));
  Array x2 = Array::copy_of(h.view(), Device::cuda(0));
  auto more = evaluate("t = x + y; x -= y; out = t * x", {{"x", x2}, {"y", y}});
  REQUIRE(more.size() == 1);
  HostArray want_x = cpu_updated("x -= y", h, &hy);
  require_same(x2.view(), want_x);
  EvaluateOptions on_cpu;
  on_cpu.device = Device::cpu();
  HostArray hx = copy(h);
  auto cpu_outs = evaluate("t = x + y; x -= y; out = t * x", {{"x", hx.view()}, {"y", hy.view()}}, on_cpu);
  HostArray want_out(DType::Float64, {100'003});
  std::memcpy(want_out.data(), cpu_outs["out"].data(), want_out.nbytes());
  require_same(more["out"].view(), want_out);
}

TEST_CASE("in place on the GPU: host arrays and a strided device view get their results back", "[gpu][inplace]") {
  HostArray h = random_f64({777}, 3);
  HostArray hx = copy(h);
  EvaluateOptions on_gpu;
  on_gpu.device = Device::cuda(0);
  evaluate(kSeed, {{"x", hx.view()}}, on_gpu);  // copied to the GPU and back
  require_same(hx.view(), cpu_updated(kSeed, h));

  // Every other element of a device buffer: the gaps keep their bytes.
  Spread s = spread_to_device(h, 0, 2);
  evaluate(kSeed, {{"x", s.view}});
  require_same(s.view, cpu_updated(kSeed, h));
  Array all = s.buffer.to_host();
  const auto* b = static_cast<const unsigned char*>(all.data());
  std::size_t bad_gaps = 0;
  for (std::int64_t e = 1; e < 2 * 777; e += 2)
    for (int k = 0; k < 8; ++k) bad_gaps += b[e * 8 + k] != 0xA5;
  CHECK(bad_gaps == 0);

  // A strided device view run on the CPU: copied down and written back into its elements.
  Spread t = spread_to_device(h, 0, 2);
  EvaluateOptions on_cpu;
  on_cpu.device = Device::cpu();
  evaluate(kSeed, {{"x", t.view}}, on_cpu);
  require_same(t.view, cpu_updated(kSeed, h));
}

// h (R, C) stored transposed on the device, as (C, R), and viewed as h again (x.T).
struct Transposed {
  Array buffer;
  ArrayView view;
};
Transposed transposed_on_device(const HostArray& h) {
  const std::int64_t r = h.shape()[0], c = h.shape()[1];
  HostArray t(h.dtype(), Shape{c, r});
  for (std::int64_t i = 0; i < r; ++i)
    for (std::int64_t j = 0; j < c; ++j) t.as<double>()[j * r + i] = h.as<double>()[i * c + j];
  Transposed out{Array::copy_of(t.view(), Device::cuda(0)), {}};
  out.view = out.buffer.view();
  out.view.shape = h.shape();
  out.view.strides = Shape{8, r * 8};
  return out;
}

TEST_CASE("in place on the GPU: through transposed views (the tiles layout and beside it)", "[gpu][inplace]") {
  // Edge tiles on both sides (32x32 tiles of float64: 1030 = 32*32 + 6,
  // 1034 = 32*32 + 10), an in-place x read and written along its rows in
  // 16-byte vectors while y comes through the tiles.
  const Shape shape{1030, 1034};
  HostArray h = random_f64(shape, 4), hy = random_f64(shape, 5);
  Array x = Array::copy_of(h.view(), Device::cuda(0));
  Transposed y = transposed_on_device(hy);
  const char* prog = "x = x*y + 1";
  evaluate(prog, {{"x", x}, {"y", y.view}});
  require_same(x.view(), cpu_updated(prog, h, &hy));
  // x itself a transposed view updated in place (its writes would go down the
  // columns: a strided layout).
  Transposed xt = transposed_on_device(h);
  evaluate(kSeed, {{"x", xt.view}});
  require_same(xt.view, cpu_updated(kSeed, h));
}

TEST_CASE("in place on the GPU: refusals come before any launch, failures leave the array as it was", "[gpu][inplace]") {
  HostArray h = random_f64({64}, 4);
  Array buf = Array::copy_of(h.view(), Device::cuda(0));
  ArrayView a = buf.view(), b = buf.view();
  a.shape = Shape{32};
  b.shape = Shape{32};
  b.data = static_cast<double*>(buf.data()) + 1;
  CHECK(error_of([&] { evaluate("x += y", {{"x", a}, {"y", b}}); }, ErrorCode::Usage) ==
        "input 'y' shares memory with input 'x', which the program updates in place; pass a copy of 'y'");
  ArrayView row = buf.view(), full = buf.view();
  row.shape = Shape{1, 32};
  row.strides = Shape{256, 8};
  full.shape = Shape{2, 32};
  full.strides = Shape{256, 8};
  HostArray other = random_f64({2, 32}, 5);
  Array o = Array::copy_of(other.view(), Device::cuda(0));
  CHECK(error_of([&] { evaluate("x += y", {{"x", row}, {"y", o}}); }, ErrorCode::Data) ==
        "input 'x' is updated in place, so it must have the result's shape (2, 32), but it has shape (1, 32); an array "
        "that is broadcast cannot hold the result (as in NumPy); give 'x' the full shape");
  require_same(buf.view(), h);

  // Raw indexing out of bounds at the last element: the kernel fails, x is as it was.
  HostArray r = random_f64({64}, 6);
  Array dr = Array::copy_of(r.view(), Device::cuda(0));
  CHECK(error_of([&] { evaluate("x += r[i + 1]", {{"x", buf}, {"r", dr}}); }, ErrorCode::Data) ==
        "index 64 is out of bounds for raw parameter 'r' of size 64");
  require_same(buf.view(), h);
  ElementwiseKernel k("float64 x, raw float64 r", "", "x += r[i + 1]", "shift");
  CHECK(error_of([&] { k(buf, dr); }, ErrorCode::Data) == "index 64 is out of bounds for raw parameter 'r' of size 64");
  require_same(buf.view(), h);
}

TEST_CASE("in place on the GPU: ElementwiseKernel updates the input the operation assigns", "[gpu][inplace][elementwise]") {
  HostArray h = random_f64({5000}, 7);
  Array x = Array::copy_of(h.view(), Device::cuda(0));
  ElementwiseKernel seed("T x", "", kSeed, "seed");
  for (int r = 0; r < 2; ++r) {  // the second call takes the prepared hot path
    CHECK(seed(x).empty());
    synchronize(0);
  }
  require_same(x.view(), cpu_updated(kSeed, cpu_updated(kSeed, h)));
  // One array passed as input and output (CuPy's way) still works.
  Array z = Array::copy_of(h.view(), Device::cuda(0));
  ElementwiseKernel twice("T a", "T b", "b = a * 2", "twice");
  twice(z, z);
  synchronize(0);
  require_same(z.view(), cpu_updated("x *= 2", h));
}

TEST_CASE("in place on the GPU: jitrun's seed example on 10^9 float64 matches NumPy's values", "[gpu][inplace][huge]") {
  // The full-size run is samples/inplace_seed/run.sh (jitrun, .npy files,
  // NumPy); here the same program on 10^9 elements of device memory is checked
  // against NumPy's values at 4000 indices (tests/data/inplace_seed_1e9.txt,
  // from gen_inplace_seed.py), and every element against the same steps on the host.
  const std::int64_t n = 1'000'000'000;
  Array x = Array::empty(DType::Float64, {n}, Device::cuda(0));
  // x = i * 1e-9 - 0.5, written by a cujit program too (its own check below).
  evaluate("x = float64(i) * 1e-9 - 0.5", {{"x", x}});
  evaluate(kSeed, {{"x", x}});
  Array back = x.to_host();
  const double* v = back.as<double>();
  std::int64_t wrong = 0;
  for (std::int64_t k = 0; k < n; ++k) {
    // volatile: each product rounded on its own, as the kernel (no FMA
    // contraction) and NumPy do, whatever the host compiler's flags.
    volatile double t = static_cast<double>(k) * 1e-9;
    t = t - 0.5;
    t = t * 5;
    t = t * t;
    t = t + t;
    wrong += v[k] != t;
  }
  CHECK(wrong == 0);
  std::ifstream f(std::string(CUJIT_TEST_DATA) + "/inplace_seed_1e9.txt");
  REQUIRE(f);
  std::int64_t checked = 0, differ = 0;
  for (std::string line; std::getline(f, line);) {
    if (line.empty() || line[0] == '#') continue;
    char* end = nullptr;
    const long long k = std::strtoll(line.c_str(), &end, 10);
    const double numpy = std::strtod(end, nullptr);
    REQUIRE((k >= 0 && k < n));
    if (v[k] != numpy) {
      if (differ++ < 5) UNSCOPED_INFO("x[" << k << "] = " << v[k] << ", NumPy " << numpy);
    }
    ++checked;
  }
  CHECK(checked > 4000);
  CHECK(differ == 0);
}

// The strided kernel takes four elements a thread, loads first, and a grid of
// a quarter of the elements' threads (gpu/layouts/strided.cpp): sizes around a
// step's edges, in place and with two outputs, each element written once.
TEST_CASE("in place on the GPU: strided views of every step's tail", "[gpu][inplace]") {
  for (std::int64_t n : {1, 2, 3, 4, 5, 255, 256, 257, 1023, 1024, 1025, 4097, 100'003}) {
    INFO("n = " << n);
    HostArray h = random_f64({n}, 40 + static_cast<std::uint64_t>(n));
    HostArray hy = random_f64({n}, 41);
    Spread x = spread_to_device(h, 0, 2);
    Spread y = spread_to_device(hy, 0, 3);
    auto outs = evaluate("t = x * 2 + y; x += y; u = x - 1", {{"x", x.view}, {"y", y.view}});
    require_same(x.view, cpu_updated("x += y", h, &hy));
    HostArray want_t = copy(h), want_u = cpu_updated("x += y", h, &hy);
    for (std::int64_t k = 0; k < n; ++k) {
      want_t.as<double>()[k] = h.as<double>()[k] * 2 + hy.as<double>()[k];
      want_u.as<double>()[k] -= 1;
    }
    require_same(outs["t"].view(), want_t);
    require_same(outs["u"].view(), want_u);
    Array all = x.buffer.to_host();
    const auto* b = static_cast<const unsigned char*>(all.data());
    std::size_t bad_gaps = 0;
    for (std::int64_t e = 1; e < 2 * n; e += 2)
      for (int k = 0; k < 8; ++k) bad_gaps += b[e * 8 + k] != 0xA5;
    CHECK(bad_gaps == 0);
  }
  // A raw index out of bounds in a strided kernel is still reported.
  HostArray h = random_f64({1025}, 5);
  Spread x = spread_to_device(h, 0, 2);
  Array r = Array::copy_of(random_f64({10}, 6).view(), Device::cuda(0));
  CHECK(error_of([&] { evaluate("y = x + r[i]", {{"x", x.view}, {"r", r}}); }, ErrorCode::Data).find(
            "out of bounds for raw parameter 'r' of size 10") != std::string::npos);
}

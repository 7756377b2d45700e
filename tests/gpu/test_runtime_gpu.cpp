// The runtime on a real GPU: Array transfers, DLPack of device memory,
// ElementwiseKernel (placeholders, scalars, raw parameters, allocated outputs,
// errors thrown before any launch, in place, threads, streams, raw CUDA mode),
// evaluate(), the hot path, 64-bit indexing past 2^31 elements, and a disk
// cache hit in a second process.
#include <array>
#include <cmath>
#include <cstring>
#include <functional>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <random>
#include <thread>
#include <tuple>

#include "catch.hpp"
#include "lang/check.hpp"
#include "cujit/dlpack.hpp"
#include "cujit/elementwise.hpp"
#include "cujit/error.hpp"
#include "cujit/evaluate.hpp"
#include "cpu/eval.hpp"
#include "gpu_util.hpp"
#include "gpu/launch.hpp"
#include "unit/reference.hpp"
#include "skip.hpp"

using namespace cujit;
using namespace cujit::gputest;

namespace {

template <class F>
ErrorCode code_of(F&& f, std::string* what = nullptr) {
  try {
    f();
  } catch (const Error& e) {
    if (what) *what = e.what();
    return e.code();
  }
  FAIL("no cujit::Error was thrown");
  return ErrorCode::Internal;
}

template <class T>
HostArray host_of(const Shape& s, std::function<T(std::int64_t)> f, DType t) {
  HostArray a(t, s);
  for (std::int64_t k = 0; k < a.size(); ++k) a.as<T>()[k] = f(k);
  return a;
}

HostArray f32(const Shape& s, std::function<float(std::int64_t)> f) { return host_of<float>(s, f, DType::Float32); }

Array dev(const HostArray& h, int device = 0) { return Array::copy_of(h.view(), Device::cuda(device)); }

Array poisoned(DType t, const Shape& s, int device = 0) {
  Array a = Array::empty(t, s, Device::cuda(device));
  poison(a.view(), a.nbytes());
  return a;
}

// True when every byte of `a` is still the 0xFF poison: nothing was launched.
bool untouched(const Array& a) {
  Array h = a.to_host();
  const auto* b = static_cast<const unsigned char*>(h.data());
  for (std::size_t k = 0; k < h.nbytes(); ++k)
    if (b[k] != 0xFF) return false;
  return true;
}

// The CPU evaluator's result for `program` on host inputs (all arrays strong).
HostArray cpu(const std::string& program, const std::vector<Input>& in, std::vector<OutputDecl> specs = {}) {
  auto outs = evaluate_cpu(program, in, specs);
  return std::move(outs.at(0).array);
}

// Bit-exact, except that any NaN matches any NaN (payloads differ between libms).
void require_equal(const Array& got_dev, const HostArray& want) {
  Array got = got_dev.to_host();
  REQUIRE(got.dtype() == want.dtype());
  REQUIRE(got.shape() == want.shape());
  std::string why;
  INFO(why);
  REQUIRE(ref::values_match(want.dtype(), got.data(), want.data(), want.size(), 0, &why));
}

}  // namespace

TEST_CASE("Array: host <-> device round trips and strided device copies", "[gpu][array]") {
  HostArray h = f32({5, 7}, [](std::int64_t k) { return static_cast<float>(k) * 0.5f; });
  Array d = dev(h);
  CHECK(d.device() == Device::cuda(0));
  Array back = d.to_host();
  CHECK(std::memcmp(back.data(), h.data(), h.nbytes()) == 0);
  // A transposed device view packs through the copy kernel.
  ArrayView t = d.view();
  t.shape = Shape{7, 5};
  t.strides = Shape{4, 28};
  Array tc = Array::copy_of(t, Device::cuda(0));
  Array th = tc.to_host();
  for (int r = 0; r < 7; ++r)
    for (int c = 0; c < 5; ++c) CHECK(th.as<float>()[r * 5 + c] == h.as<float>()[c * 7 + r]);
  // ... and straight to the host.
  Array th2 = Array::copy_of(t, Device::cpu());
  CHECK(std::memcmp(th2.data(), th.data(), th.nbytes()) == 0);
  // Device to device, and host strided to device.
  Array d2 = Array::empty(DType::Float32, {5, 7}, Device::cuda(0));
  d2.copy_from(d.view());
  CHECK(std::memcmp(d2.to_host().data(), h.data(), h.nbytes()) == 0);
  ArrayView hs = h.view();
  hs.shape = Shape{7, 5};
  hs.strides = Shape{4, 28};
  Array d3 = Array::empty(DType::Float32, {7, 5}, Device::cuda(0));
  d3.copy_from(hs);
  CHECK(std::memcmp(d3.to_host().data(), th.data(), th.nbytes()) == 0);
  CHECK(Array::empty(DType::Int8, {0}, Device::cuda(0)).to_host().size() == 0);
}

TEST_CASE("DLPack: device memory exported and imported runs in kernels", "[gpu][dlpack]") {
  HostArray h = f32({4, 6}, [](std::int64_t k) { return static_cast<float>(k); });
  Array d = dev(h);
  DLManagedTensor* m = to_dlpack(d);
  CHECK(m->dl_tensor.device.device_type == kDLCUDA);
  CHECK(m->dl_tensor.device.device_id == 0);
  ArrayView v = from_dlpack(m);
  CHECK(v.device == Device::cuda(0));
  ElementwiseKernel k("T x", "T y", "y = x * 2", "twice");
  auto out = k(v);
  HostArray want = f32({4, 6}, [](std::int64_t q) { return static_cast<float>(2 * q); });
  require_equal(out[0], want);
  // A foreign strided view of device memory: column 1 of the 4x6 array.
  std::int64_t shape[1] = {4};
  std::int64_t strides[1] = {6};
  DLManagedTensor col{};
  col.dl_tensor = m->dl_tensor;
  col.dl_tensor.ndim = 1;
  col.dl_tensor.shape = shape;
  col.dl_tensor.strides = strides;
  col.dl_tensor.byte_offset = 4;
  auto c2 = k(from_dlpack(&col));
  Array ch = c2[0].to_host();
  for (int r = 0; r < 4; ++r) CHECK(ch.as<float>()[r] == static_cast<float>(2 * (r * 6 + 1)));
  m->deleter(m);
}

TEST_CASE("ElementwiseKernel: placeholders bind from arrays, scalars follow NEP 50", "[gpu][elementwise]") {
  ElementwiseKernel k("T x, T y", "T z", "z = x * y + 1", "fma1");
  for (DType t : {DType::Float32, DType::Float64, DType::Int32, DType::Float16, DType::Complex64}) {
    HostArray a(t, Shape{257}), b(t, Shape{257});
    std::mt19937_64 rng(run_seed());
    fill_random(a, rng);
    fill_random(b, rng);
    auto out = k(dev(a), dev(b));
    REQUIRE(out.size() == 1);
    CHECK(out[0].dtype() == t);
    require_equal(out[0], cpu("z = x * y + 1", {{"x", a.view()}, {"y", b.view()}}));
  }
  // T bound by x: the weak 3 becomes int8, so int8 arithmetic wraps.
  HostArray i8 = host_of<std::int8_t>({4}, [](std::int64_t q) { return static_cast<std::int8_t>(125 + q); }, DType::Int8);
  ElementwiseKernel add("T x, T a", "T z", "z = x + a", "add_t");
  auto r = add(dev(i8), 3);
  CHECK(r[0].dtype() == DType::Int8);
  CHECK(r[0].to_host().as<std::int8_t>()[3] == static_cast<std::int8_t>(-125));
  // U unbound: a weak float stays weak (int8 + 2.5 is float64, as NumPy), a
  // typed float32 is strong (int8 + float32 is float32).
  ElementwiseKernel mix("T x, U a", "V z", "z = x + a", "mix");
  CHECK(mix(dev(i8), 2.5)[0].dtype() == DType::Float64);
  CHECK(mix(dev(i8), Arg::typed(DType::Float32, 2.5))[0].dtype() == DType::Float32);
  CHECK(mix(dev(i8), 2)[0].dtype() == DType::Int8);  // weak int: int8 stays int8
  // A weak integer that does not fit the int8 it meets: reported by the kernel.
  std::string what;
  CHECK(code_of([&] { mix(dev(i8), 300); }, &what) == ErrorCode::Data);
  CHECK(what == "scalar value 300 does not fit in int8");
  // A concrete parameter converts scalars to its dtype.
  ElementwiseKernel scale("float32 x, float16 s", "float32 z", "z = x * s", "scale");
  HostArray x = f32({3}, [](std::int64_t q) { return static_cast<float>(q + 1); });
  Array sz = scale(dev(x), 0.1)[0].to_host();
  CHECK(sz.as<float>()[0] == 0.0999755859375f);  // float16(0.1) exactly
}

TEST_CASE("ElementwiseKernel: raw parameters, allocated and given outputs", "[gpu][elementwise]") {
  HostArray x = f32({6}, [](std::int64_t q) { return static_cast<float>(q * 10); });
  Array dx = dev(x);
  ElementwiseKernel rev("raw T x", "T y", "y = x[n - 1 - i]", "reverse");
  Array y = poisoned(DType::Float32, {6});
  CHECK(rev(dx, y).empty());
  CHECK(y.to_host().as<float>()[0] == 50.0f);
  CHECK(y.to_host().as<float>()[5] == 0.0f);
  std::string what;
  CHECK(code_of([&] { rev(dx); }, &what) == ErrorCode::Usage);  // no shape to allocate
  CHECK(what.find("CallOptions::shape") != std::string::npos);
  CallOptions co;
  co.shape = Shape{3};
  auto first3 = rev.call({dx}, co);
  CHECK(first3[0].to_host().as<float>()[0] == 20.0f);  // n = 3
  // Out of bounds: the CPU evaluator's message.
  ElementwiseKernel bad("raw T x", "T y", "y = x[i + 1]", "shift");
  Array y2 = poisoned(DType::Float32, {6});
  CHECK(code_of([&] { bad(dx, y2); }, &what) == ErrorCode::Data);
  CHECK(what == "index 6 is out of bounds for raw parameter 'x' of size 6");
  // Broadcasting with allocated outputs: (3,1) and (4,) give (3,4); two outputs.
  ElementwiseKernel two("T a, T b", "T s, bool g", "s = a + b; g = a > b", "two");
  HostArray a = f32({3, 1}, [](std::int64_t q) { return static_cast<float>(q); });
  HostArray b = f32({4}, [](std::int64_t q) { return static_cast<float>(q) - 1.0f; });
  auto outs = two(dev(a), dev(b));
  REQUIRE(outs.size() == 2);
  CHECK(outs[0].shape() == Shape{3, 4});
  CHECK(outs[1].dtype() == DType::Bool);
  require_equal(outs[0], cpu("s = a + b", {{"a", a.view()}, {"b", b.view()}}));
  // A non-contiguous, broadcast input view (stride 0).
  ArrayView bc = dev(b).view();
  Array keep = dev(b);
  bc = keep.view();
  bc.shape = Shape{3, 4};
  bc.strides = Shape{0, 4};
  auto o2 = two(dev(a), bc);
  require_equal(o2[0], cpu("s = a + b", {{"a", a.view()}, {"b", b.view()}}));
  // Zero-size: no launch, an empty output.
  HostArray e(DType::Float32, Shape{0, 3});
  auto z = two(dev(e), dev(e));
  CHECK(z[0].shape() == Shape{0, 3});
}

TEST_CASE("ElementwiseKernel: shape, dtype, device and overlap errors come before any launch", "[gpu][elementwise]") {
  ElementwiseKernel k("T x, T y", "T z", "z = x + y", "add");
  HostArray h = f32({8}, [](std::int64_t q) { return static_cast<float>(q); });
  Array x = dev(h), y = dev(h);
  std::string what;
  Array z5 = poisoned(DType::Float32, {5});
  CHECK(code_of([&] { k(x, y, z5); }, &what) == ErrorCode::Data);  // output shape
  CHECK(what.find("output 'z' has shape (5,)") != std::string::npos);
  CHECK(untouched(z5));
  Array zi = poisoned(DType::Int32, {8});
  CHECK(code_of([&] { k(x, y, zi); }, &what) == ErrorCode::Data);  // output dtype
  CHECK(untouched(zi));
  Array z = poisoned(DType::Float32, {8});
  CHECK(code_of([&] { k(h.view(), y, z); }, &what) == ErrorCode::Data);  // host input
  CHECK(what.find("host memory") != std::string::npos);
  CHECK(untouched(z));
  HostArray h4 = f32({4}, [](std::int64_t q) { return static_cast<float>(q); });
  CHECK(code_of([&] { k(x, dev(h4), z); }, &what) == ErrorCode::Data);  // no broadcast
  CHECK(what.find("do not broadcast") != std::string::npos);
  CHECK(untouched(z));
  // Overlap: the output is the input shifted by one element.
  Array buf = dev(f32({9}, [](std::int64_t q) { return static_cast<float>(q); }));
  ArrayView in8 = buf.view(), out8 = buf.view();
  in8.shape = out8.shape = Shape{8};
  out8.data = static_cast<float*>(buf.data()) + 1;
  CHECK(code_of([&] { k(in8, y, out8); }, &what) == ErrorCode::Usage);
  CHECK(what.find("overlaps input 'x'") != std::string::npos);
  CHECK(std::memcmp(buf.to_host().data(), f32({9}, [](std::int64_t q) { return static_cast<float>(q); }).data(), 36) == 0);
  // Two outputs in one buffer.
  ElementwiseKernel two("T x", "T a, T b", "a = x; b = x", "dup");
  CHECK(code_of([&] { two(x, z, z); }, &what) == ErrorCode::Usage);
  CHECK(what.find("outputs 'a' and 'b' overlap") != std::string::npos);
  // A raw input may not be written at all.
  ElementwiseKernel rw("raw T x", "T y", "y = x[i] * 2", "rw");
  CHECK(code_of([&] { rw(x, x); }, &what) == ErrorCode::Usage);
  // Another device, where there is one.
  if (device_count() > 1) {
    Array x1 = dev(h, 1);
    CHECK(code_of([&] { k(x, x1, z); }, &what) == ErrorCode::Data);
    CHECK(untouched(z));
  }
  CHECK(untouched(z));
}

TEST_CASE("ElementwiseKernel: in place, exactly", "[gpu][elementwise]") {
  ElementwiseKernel k("T x, T y", "T z", "z = x * y", "mul");
  HostArray h = f32({1000}, [](std::int64_t q) { return static_cast<float>(q % 17) - 8.0f; });
  Array x = dev(h), y = dev(h);
  k(x, y, x);  // z is x: each element read, then written
  require_equal(x, cpu("z = x * y", {{"x", h.view()}, {"y", h.view()}}));
  // In place on a strided view too.
  ArrayView every2 = y.view();
  every2.shape = Shape{500};
  every2.strides = Shape{8};
  k(every2, every2, every2);
  Array yh = y.to_host();
  CHECK(yh.as<float>()[2] == h.as<float>()[2] * h.as<float>()[2]);
  CHECK(yh.as<float>()[3] == h.as<float>()[3]);
}

TEST_CASE("ElementwiseKernel: many threads call one kernel object", "[gpu][elementwise][threads]") {
  ElementwiseKernel k("T x, T a", "T z", "z = x * a - i", "threads");
  std::atomic<int> bad{0};
  std::vector<std::thread> pool;
  for (int t = 0; t < 8; ++t)
    pool.emplace_back([&, t] {
      try {
        for (int r = 0; r < 40; ++r) {
          const std::int64_t n = 100 + 37 * ((t + r) % 5);
          if ((t + r) % 2) {
            HostArray h = host_of<double>({n}, [](std::int64_t q) { return static_cast<double>(q) * 0.25; }, DType::Float64);
            Array out = k(dev(h), 3)[0].to_host();
            for (std::int64_t q = 0; q < n; ++q)
              if (out.as<double>()[q] != static_cast<double>(q) * 0.25 * 3 - static_cast<double>(q)) ++bad;
          } else {
            HostArray h = host_of<std::int32_t>({n}, [](std::int64_t q) { return static_cast<std::int32_t>(q); }, DType::Int32);
            Array out = k(dev(h), 5)[0].to_host();
            // x * a - i computes in int64 (i is int64); z is T, int32.
            if (out.dtype() != DType::Int32) ++bad;
            for (std::int64_t q = 0; q < n; ++q)
              if (out.as<std::int32_t>()[q] != 4 * q) ++bad;
          }
        }
      } catch (const std::exception& e) {
        std::printf("thread error: %s\n", e.what());
        ++bad;
      }
    });
  for (auto& th : pool) th.join();
  CHECK(bad.load() == 0);
}

TEST_CASE("ElementwiseKernel: streams, options, and the prepared hot path", "[gpu][elementwise]") {
  Stream s(0);
  ElementwiseOptions o;
  o.stream = reinterpret_cast<StreamHandle>(s.get());
  ElementwiseKernel k("float32 x", "float32 y", "y = sin(x) * 5", "sin5", o);
  HostArray h = f32({1 << 20}, [](std::int64_t q) { return static_cast<float>(q % 1000) * 0.01f; });
  Array x = dev(h);
  Array y = poisoned(DType::Float32, {1 << 20});
  synchronize(0);  // the legacy stream's copies, before work on a non-blocking stream
  k(x, y);
  s.synchronize();
  HostArray want = cpu("y = sin(x) * 5", {{"x", h.view()}});
  std::string why;
  Array got = y.to_host();
  // sin within 4 ulp on each side (contract), the product exact: within 8.
  bool close = ref::values_match(DType::Float32, got.data(), want.data(), want.size(), 8, &why);
  INFO(why);
  CHECK(close);
  // fast_math compiles and runs (its accuracy is looser by contract).
  ElementwiseOptions fm;
  fm.fast_math = true;
  ElementwiseKernel kf("float32 x", "float32 y", "y = sin(x) * 5", "sin5f", fm);
  Array yf = kf(x)[0].to_host();
  CHECK(std::abs(yf.as<float>()[100] - want.as<float>()[100]) < 1e-3f);

  // The second call of a call shape takes the prepared path.
  auto prog = std::make_shared<Program>(compile_program("out = x + 1", {Param{"x", DType::Float32}}));
  GpuProgram g(prog);
  Array out = poisoned(DType::Float32, {1 << 20});
  LaunchStats st;
  ArrayView iv = x.view(), ov = out.view();
  g.launch(0, &iv, &ov, nullptr, &st);
  CHECK(st.kernel != LaunchStats::Kernel::Prepared);
  CHECK(st.layout == "c.i32.v4|o:c|i:c");
  g.launch(0, &iv, &ov, nullptr, &st);
  CHECK(st.kernel == LaunchStats::Kernel::Prepared);
  CHECK(st.grid > 0);
  CHECK(st.block > 0);
  // Misaligned pointers plan anew (smaller vectors), and stay correct.
  ArrayView iv1 = iv, ov1 = ov;
  iv1.data = static_cast<float*>(iv1.data) + 1;
  ov1.data = static_cast<float*>(ov1.data) + 1;
  iv1.shape = ov1.shape = Shape{(1 << 20) - 1};
  g.launch(0, &iv1, &ov1, nullptr, &st);
  CHECK(st.layout == "c.i32.v1|o:c|i:c");
  synchronize(0);
  Array oh = out.to_host();
  CHECK(oh.as<float>()[1] == h.as<float>()[1] + 1);
}

TEST_CASE("ElementwiseKernel: raw CUDA mode", "[gpu][elementwise][raw_cuda]") {
  ElementwiseOptions o;
  o.raw_cuda = true;
  o.preamble = "__device__ T twice(T v) { return v + v; }";
  ElementwiseKernel k("T x, T y, raw T w", "T z", "z = twice(x) * y + w[i % 3] + (T)n;", "rawk", o);
  HostArray x = f32({100}, [](std::int64_t q) { return static_cast<float>(q); });
  HostArray w = f32({3}, [](std::int64_t q) { return static_cast<float>(q) * 100.0f; });
  Array z = k(dev(x), 2.0, dev(w))[0].to_host();
  for (int q = 0; q < 100; ++q) CHECK(z.as<float>()[q] == static_cast<float>(2 * q * 2 + (q % 3) * 100 + 100));
  // float16 through __half, on a strided view.
  ElementwiseKernel kh("T x", "T z", "z = x * x;", "rawh", [] {
    ElementwiseOptions r;
    r.raw_cuda = true;
    return r;
  }());
  HostArray hx(DType::Float16, Shape{64});
  for (int q = 0; q < 64; ++q) hx.as<std::uint16_t>()[q] = scalar::cast<scalar::Half>(static_cast<double>(q) / 8).bits;
  Array dx = dev(hx);
  ArrayView every2 = dx.view();
  every2.shape = Shape{32};
  every2.strides = Shape{4};
  Array zh = kh(every2)[0].to_host();
  for (int q = 0; q < 32; ++q) {
    double v = static_cast<double>(2 * q) / 8;
    CHECK(zh.as<std::uint16_t>()[q] == scalar::cast<scalar::Half>(v * v).bits);
  }
  // The user's CUDA error is a Program error with NVRTC's log.
  ElementwiseKernel broken("T x", "T z", "z = x +* ;", "broken", o);
  std::string what;
  CHECK(code_of([&] { broken(dev(x)); }, &what) == ErrorCode::Program);
  CHECK(what.rfind("your CUDA code failed to compile: kernel 'cujit_broken' (NVRTC_ERROR_COMPILATION)\n", 0) == 0);
  try {
    broken(dev(x));
    FAIL("no CompileError");
  } catch (const CompileError& e) {
    CHECK(e.stage() == "compile");
    CHECK(e.log().find("cujit_broken.cu(") != std::string::npos);
    CHECK(e.source().find("z = x +* ;") != std::string::npos);
    CHECK(e.options().find("--gpu-architecture=sm_") != std::string::npos);
  }
}

TEST_CASE("evaluate: device arrays run on their GPU", "[gpu][evaluate]") {
  HostArray h = f32({1000}, [](std::int64_t q) { return static_cast<float>(q) * 0.001f; });
  Array x = dev(h);
  for (int r = 0; r < 3; ++r) {  // repeated calls reuse the compiled program
    auto outs = evaluate("out = sin(x)*5; m = x > 0.5", {{"x", x}});
    REQUIRE(outs.size() == 2);
    CHECK(outs[0].array.device() == Device::cuda(0));
    CHECK(outs[1].array.dtype() == DType::Bool);
    Array o = outs[0].array.to_host();
    CHECK(std::abs(o.as<float>()[999] - std::sin(0.999f) * 5) < 1e-5f);
  }
  EvaluateOptions on_gpu;
  on_gpu.device = Device::cuda(0);
  auto moved = evaluate("out = x * 2", {{"x", h.view()}}, on_gpu);  // host input copied over
  CHECK(moved[0].array.device() == Device::cuda(0));
  EvaluateOptions on_cpu;
  on_cpu.device = Device::cpu();
  auto back = evaluate("out = x * 2", {{"x", x}}, on_cpu);
  CHECK(back[0].array.device() == Device::cpu());
  CHECK(std::memcmp(back[0].array.data(), moved[0].array.to_host().data(), 4000) == 0);
  auto rev = evaluate("out = x[n - 1 - i]", {{"x", x}});
  CHECK(rev[0].array.to_host().as<float>()[0] == h.as<float>()[999]);
}

TEST_CASE("evaluate: a bool input's nonzero bytes are True on the GPU, as on the CPU and in NumPy", "[gpu][evaluate]") {
  // A uint8 array viewed as bool: the kernels read a bool's byte as it was
  // (c + 0 gave 2, sum(c) added the bytes). Contiguous, strided (the gaps
  // 0xA5 bytes) and broadcast inputs, raw indexing, and the reductions; the
  // GPU's result bytes are the CPU evaluator's (tests/unit/test_eval.cpp
  // holds those to NumPy's rule).
  const std::int64_t rows = 37, cols = 301;  // not a multiple of any vector
  std::mt19937_64 rng(gputest::run_seed() + 77);
  HostArray c(DType::Bool, Shape{rows, cols}), t(DType::Bool, Shape{rows, cols}), row(DType::Bool, Shape{cols});
  HostArray x(DType::Float32, Shape{rows, cols});
  for (std::int64_t k = 0; k < rows * cols; ++k) {
    const auto r = static_cast<unsigned>(rng() % 6);
    c.as<std::uint8_t>()[k] = static_cast<std::uint8_t>(r == 0 ? 0 : r == 1 ? 1 : 2 + rng() % 254);
    t.as<std::uint8_t>()[k] = static_cast<std::uint8_t>(rng() % 3 == 0 ? 0 : 1 + rng() % 255);
    x.as<float>()[k] = static_cast<float>(k);
  }
  for (std::int64_t k = 0; k < cols; ++k) row.as<std::uint8_t>()[k] = c.as<std::uint8_t>()[k];
  EvaluateOptions on_gpu, on_cpu;
  on_gpu.device = Device::cuda(0);
  on_cpu.device = Device::cpu();
  const Spread strided = spread_to_device(c, 0, 2);
  const char* programs[] = {"out = c + 0",        "out = c == t",   "out = ~c",          "out = int32(c)",
                            "out = c * 1.5",      "out = c & t",    "out = where(c, x, -x)", "out = c[i] + 0",
                            "s = sum(c)",         "s = any(c)",     "s = all(c | t)",    "s = argmax(c)",
                            "s = sum(c, axis=1)", "s = mean(c, axis=0)", "s = max(c)"};
  for (const char* prog : programs) {
    for (int form = 0; form < 3; ++form) {  // contiguous, strided, a broadcast row
      const std::string ps = prog;
      if (form > 0 && ps.find("c[i]") != std::string::npos) continue;  // raw indexing reads c whole
      if (form == 2 && ps.find("axis=1") != std::string::npos) continue;  // the row has one axis
      INFO(prog << ", input " << (form == 0 ? "contiguous" : form == 1 ? "strided" : "a broadcast row"));
      const Arg cg = form == 0 ? Arg(c.view()) : form == 1 ? Arg(strided.view) : Arg(row.view());
      const Arg ch = form == 2 ? Arg(row.view()) : Arg(c.view());
      auto g = evaluate(prog, {{"c", cg}, {"t", t.view()}, {"x", x.view()}}, on_gpu);
      auto h = evaluate(prog, {{"c", ch}, {"t", t.view()}, {"x", x.view()}}, on_cpu);
      REQUIRE(g.size() == 1);
      const Array gh = g[0].array.to_host();
      REQUIRE(gh.dtype() == h[0].array.dtype());
      REQUIRE(gh.nbytes() == h[0].array.nbytes());
      CHECK(std::memcmp(gh.data(), h[0].array.data(), gh.nbytes()) == 0);
    }
  }
}

TEST_CASE("A kernel used on device 0 then device 1", "[gpu][multi]") {
  if (device_count() < 2) CUJIT_SKIP("one CUDA device here; the device 0 -> device 1 test needs two");
  ElementwiseKernel k("T x", "T y", "y = x + 1", "both");
  HostArray h = f32({100}, [](std::int64_t q) { return static_cast<float>(q); });
  auto y0 = k(dev(h, 0));
  auto y1 = k(dev(h, 1));
  CHECK(y0[0].device() == Device::cuda(0));
  CHECK(y1[0].device() == Device::cuda(1));
  CHECK(std::memcmp(y0[0].to_host().data(), y1[0].to_host().data(), 400) == 0);
}

TEST_CASE("More than 2^31 elements: the 64-bit index path", "[gpu][huge][huge_index]") {
  const std::int64_t n = (std::int64_t{1} << 31) + 4099;
  std::size_t free_b = 0, total_b = 0;
  {
    ScopedContext ctx(0);
    CU_CALL(cuMemGetInfo, &free_b, &total_b);
  }
  if (free_b < static_cast<std::size_t>(2 * n + (1 << 30)))
    CUJIT_SKIP(std::to_string(free_b) + " bytes free on device 0, the >2^31 test needs " + std::to_string(2 * n + (1 << 30)));
  HostArray x(DType::UInt8, Shape{n});
  for (std::int64_t k = 0; k < n; ++k) x.as<std::uint8_t>()[k] = static_cast<std::uint8_t>((k * 131) % 251);
  Array dx = dev(x);
  Array out = poisoned(DType::UInt8, {n});
  auto prog = std::make_shared<Program>(compile_program("out = x ^ uint8(i)", {Param{"x", DType::UInt8}}));
  GpuProgram g(prog);
  LaunchStats st;
  ArrayView iv = dx.view(), ov = out.view();
  g.launch(0, &iv, &ov, nullptr, &st);
  synchronize(0);
  CHECK(st.layout.find(".i64.") != std::string::npos);
  Array oh = out.to_host();
  std::int64_t wrong = 0;
  for (std::int64_t k = 0; k < n; ++k)
    wrong += oh.as<std::uint8_t>()[k] != static_cast<std::uint8_t>(x.as<std::uint8_t>()[k] ^ static_cast<std::uint8_t>(k));
  CHECK(wrong == 0);
  std::printf("64-bit path: %lld elements, layout %s, grid %u x %u, %lld wrong\n", static_cast<long long>(n), st.layout.c_str(),
              st.grid, st.block, static_cast<long long>(wrong));
}

TEST_CASE("More than 2^31 elements from broadcasts: the 64-bit rows path", "[gpu][huge][huge_rows]") {
  const std::int64_t r = std::int64_t{1} << 16, c = (std::int64_t{1} << 15) + 24;  // 2^31 + 2^20 + 2^19 elements
  const std::int64_t n = r * c;
  std::size_t free_b = 0, total_b = 0;
  {
    ScopedContext ctx(0);
    CU_CALL(cuMemGetInfo, &free_b, &total_b);
  }
  if (free_b < static_cast<std::size_t>(n + (1 << 30)))
    CUJIT_SKIP(std::to_string(free_b) + " bytes free on device 0, the >2^31 rows test needs " + std::to_string(n + (1 << 30)));
  HostArray x(DType::UInt8, Shape{r, 1}), y(DType::UInt8, Shape{1, c});
  for (std::int64_t k = 0; k < r; ++k) x.as<std::uint8_t>()[k] = static_cast<std::uint8_t>((k * 131) % 251);
  for (std::int64_t k = 0; k < c; ++k) y.as<std::uint8_t>()[k] = static_cast<std::uint8_t>((k * 71) % 241);
  Array dx = dev(x), dy = dev(y);
  Array out = poisoned(DType::UInt8, {r, c});
  auto prog = std::make_shared<Program>(compile_program("out = (x ^ y) + uint8(i)", {Param{"x", DType::UInt8}, Param{"y", DType::UInt8}}));
  GpuProgram g(prog);
  LaunchStats st;
  ArrayView iv[2] = {dx.view(), dy.view()}, ov = out.view();
  g.launch(0, iv, &ov, nullptr, &st);
  synchronize(0);
  CHECK(st.layout == "r.i64.v8.d2|o:s|i:b,s");  // c % 16 == 8: rows stay 8-byte aligned
  Array oh = out.to_host();
  const auto* o = oh.as<std::uint8_t>();
  std::int64_t wrong = 0;
  for (std::int64_t row = 0; row < r; ++row)
    for (std::int64_t col = 0; col < c; ++col) {
      const std::int64_t k = row * c + col;
      wrong += o[k] != static_cast<std::uint8_t>((x.as<std::uint8_t>()[row] ^ y.as<std::uint8_t>()[col]) + static_cast<std::uint8_t>(k));
    }
  CHECK(wrong == 0);
  std::printf("64-bit rows path: %lld elements, layout %s, grid %u x %u, block %u x %u, %lld wrong\n", static_cast<long long>(n),
              st.layout.c_str(), st.grid, st.grid_y, st.block, st.block_y, static_cast<long long>(wrong));
}

TEST_CASE("Rows layouts: launch shapes for short, long and many rows", "[gpu][rows]") {
  // Each shape's output against the host, poisoned first; the launch shape
  // covers every row and column whatever the grid's y limit.
  struct Case { std::int64_t r, c; };
  // (2^24 + 5) rows of 2: more y blocks than a grid has (65535), so the rows loop turns.
  for (Case cs : {Case{70000, 4}, Case{3, 100000}, Case{129, 33}, Case{2, 2}, Case{100000, 1}, Case{(1 << 24) + 5, 2}}) {
    INFO(cs.r << " x " << cs.c);
    HostArray x = f32({cs.r, 1}, [](std::int64_t q) { return static_cast<float>(q % 1000) * 0.5f; });
    HostArray y = f32({cs.c}, [](std::int64_t q) { return static_cast<float>(q % 777) + 0.25f; });
    Array dx = dev(x), dy = dev(y);
    Array out = poisoned(DType::Float32, {cs.r, cs.c});
    auto prog = std::make_shared<Program>(compile_program("z = x*y + 1", {Param{"x", DType::Float32}, Param{"y", DType::Float32}}));
    GpuProgram g(prog);
    LaunchStats st;
    ArrayView iv[2] = {dx.view(), dy.view()}, ov = out.view();
    g.launch(0, iv, &ov, nullptr, &st);
    synchronize(0);
    if (cs.c > 1) CHECK(st.layout.rfind("r.i32.", 0) == 0);
    Array oh = out.to_host();
    std::int64_t wrong = 0;
    for (std::int64_t row = 0; row < cs.r; ++row)
      for (std::int64_t col = 0; col < cs.c; ++col) {
        volatile float prod = x.as<float>()[row] * y.as<float>()[col];  // rounded, as the kernel does: no FMA
        float want = prod + 1.0f;
        wrong += std::memcmp(&oh.as<float>()[row * cs.c + col], &want, 4) != 0;
      }
    CHECK(wrong == 0);
    std::printf("rows %lld x %lld: layout %s, grid %u x %u, block %u x %u\n", static_cast<long long>(cs.r), static_cast<long long>(cs.c),
                st.layout.c_str(), st.grid, st.grid_y, st.block, st.block_y);
  }
}

TEST_CASE("A second process finds the kernel in the disk cache", "[gpu][cache]") {
  namespace fs = std::filesystem;
  fs::path dir = fs::temp_directory_path() / ("cujit-gpu-cache-" + std::to_string(run_seed()));
  fs::remove_all(dir);
  std::string cmd = "CUJIT_CACHE_DIR='" + dir.string() + "' '" + CUJIT_JITRUN +
                    "' --device 0 -v -i 'x=rand(1000)' 'out = cos(x) * 3 + 0.25' 2>&1";
  auto run = [&]() {
    const auto [status, out] = shell_output(cmd);
    CHECK(status == 0);
    return out;
  };
  std::string first = run(), second = run();
  INFO(first);
  INFO(second);
  CHECK(first.find("(compiled)") != std::string::npos);
  CHECK(second.find("(disk cache hit)") != std::string::npos);
  fs::remove_all(dir);
}

TEST_CASE("ElementwiseKernel: host arrays (CPU evaluator) and device arrays agree; outputs by name", "[gpu][elementwise]") {
  ElementwiseKernel k("T x, T y, float32 a", "T z, bool pos", "z = a * x + y\npos = z > 0", "axpy_both");
  HostArray hx = f32({1000}, [](std::int64_t q) { return static_cast<float>(q % 17) - 8.5f; });
  HostArray hy = f32({1000}, [](std::int64_t q) { return static_cast<float>(q % 5) * 0.25f; });
  auto host = k(hx.view(), hy.view(), 2.5);
  auto gpu = k(dev(hx), dev(hy), 2.5);
  CHECK(host["z"].device() == Device::cpu());
  CHECK(gpu["z"].device() == Device::cuda(0));
  CHECK(std::memcmp(host["z"].data(), gpu["z"].to_host().data(), 4000) == 0);
  CHECK(std::memcmp(host["pos"].data(), gpu["pos"].to_host().data(), 1000) == 0);
  auto outs = evaluate("out = x * 2.5", {{"x", dev(hx)}});
  CHECK(outs["out"].device() == Device::cuda(0));
}

// bfloat16 rounds by PTX's cvt on sm_80+ and on the bits before (and on the
// host): the same bits for every float32, ties, subnormals, overflow to
// infinity and NaNs (sign and top payload kept, made quiet) included.
TEST_CASE("bfloat16 rounding by the GPU's cvt gives the CPU evaluator's bits", "[gpu][elementwise]") {
  std::mt19937_64 rng(run_seed());
  const std::int64_t n = (1 << 16) + 7;  // a tail past the last whole vector too
  HostArray f(DType::Float32, {n}), x(DType::BFloat16, {n}), y(DType::BFloat16, {n});
  auto* fb = static_cast<std::uint32_t*>(f.data());
  auto* xb = static_cast<std::uint16_t*>(x.data());
  auto* yb = static_cast<std::uint16_t*>(y.data());
  for (std::int64_t k = 0; k < n; ++k) {
    std::uint32_t w = static_cast<std::uint32_t>(rng());
    switch (rng() % 8) {
      case 0: w = (w & 0xffff0000u) | 0x8000u; break;            // a tie
      case 1: w &= 0x807fffffu; break;                           // subnormal
      case 2: w = (w & 0x80000000u) | 0x7f7f0000u | (w & 0xffffu); break;  // near the largest: may overflow
      case 3: if (rng() % 4 == 0) w |= 0x7f800000u; break;       // a NaN or infinity now and then
      default: break;
    }
    fb[k] = w;
    auto half = [&] {
      std::uint16_t h = static_cast<std::uint16_t>(rng() & 0xffff);
      if ((h & 0x7f80) == 0x7f80 && rng() % 8) h &= 0xbfff;  // mostly finite
      return h;
    };
    xb[k] = half(), yb[k] = half();
  }
  // With a float32 parameter the vectors hold 4 lanes, without it 8.
  // (program, reads f, NaN bits exact): a NaN that arithmetic makes from a
  // NaN operand is the GPU's canonical one and the host's first operand, so
  // there any NaN matches any NaN; conversions and sign operations keep bits.
  const std::tuple<const char*, bool, bool> progs[] = {
      {"z = bfloat16(f)", true, true}, {"z = bfloat16(f*f) - x", true, false}, {"z = x*0.5 + y", false, false},
      {"z = x*y - x", false, false},   {"z = -x", false, true},                 {"z = copysign(x, y)", false, true},
      {"z = bfloat16(float32(x) / 3)", false, false}};
  for (const auto& [prog, reads_f, exact_nan] : progs) {
    INFO(prog);
    Array z = poisoned(DType::BFloat16, {n});
    if (reads_f) {
      ElementwiseKernel k("float32 f, bfloat16 x", "bfloat16 z", prog, "bf16bits");
      k(dev(f), dev(x), z);
    } else {
      ElementwiseKernel k("bfloat16 x, bfloat16 y", "bfloat16 z", prog, "bf16bits");
      k(dev(x), dev(y), z);
    }
    const HostArray want = reads_f ? cpu(prog, {{"f", f.view()}, {"x", x.view()}})
                                   : cpu(prog, {{"x", x.view()}, {"y", y.view()}});
    const Array got = z.to_host();
    const auto* g = static_cast<const std::uint16_t*>(got.data());
    const auto* w = static_cast<const std::uint16_t*>(want.data());
    std::int64_t bad = 0, first = -1;
    auto nan = [](std::uint16_t h) { return (h & 0x7fff) > 0x7f80; };
    for (std::int64_t q = 0; q < n; ++q)
      if (g[q] != w[q] && (exact_nan || !nan(g[q]) || !nan(w[q]))) bad++, first = first < 0 ? q : first;
    INFO("first differing element " << first << ": got 0x" << std::hex << (first >= 0 ? g[first] : 0) << ", want 0x"
                                    << (first >= 0 ? w[first] : 0));
    CHECK(bad == 0);
  }
}

// float32 to uint8/uint16 takes a float clamp on the GPU (cast.cuh): NaN, the
// infinities, values past either end and fractions as the CPU evaluator casts them.
TEST_CASE("float32 to uint8/uint16 casts give the CPU evaluator's values", "[gpu][elementwise]") {
  std::mt19937_64 rng(run_seed());
  const float special[] = {NAN, -NAN, INFINITY, -INFINITY, 0.f, -0.f, -0.5f, -1.f, 0.99f, 254.5f, 255.f, 255.9f, 256.f,
                           65534.7f, 65535.f, 65535.5f, 65536.f, 1e10f, -1e10f, 3.4e38f, 1e-40f};
  const std::int64_t n = (1 << 14) + 3;
  HostArray f(DType::Float32, {n});
  auto* fp = static_cast<float*>(f.data());
  std::uniform_real_distribution<float> wide(-70000.f, 140000.f);
  for (std::int64_t k = 0; k < n; ++k)
    fp[k] = rng() % 3 == 0 ? special[rng() % (sizeof special / sizeof special[0])] : wide(rng) / (rng() % 2 ? 1.f : 256.f);
  for (const char* t : {"uint8", "uint16"}) {
    const std::string prog = std::string("z = ") + t + "(f)", out = std::string(t) + " z";
    INFO(prog);
    ElementwiseKernel k("float32 f", out, prog, "f2u");
    const DType dt = std::string(t) == "uint8" ? DType::UInt8 : DType::UInt16;
    Array z = poisoned(dt, {n});
    k(dev(f), z);
    require_equal(z, cpu(prog, {{"f", f.view()}}));
  }
  // A cast of a clip with constant bounds is one clamp on the GPU (codegen's
  // clip_cast): bounds inside, past and on the edges of the type's range,
  // fractional ones, and bounds it must not fuse (lo >= 1, lo > hi, hi < 0).
  const std::pair<const char*, const char*> clips[] = {
      {"uint8(clip(f, 0, 255))", "uint8"},           {"uint8(clip(f*1.2 + 10, -5, 300))", "uint8"},
      {"uint8(clip(f, 0.5, 254.5))", "uint8"},       {"uint8(clip(f, -0.0, 0.7))", "uint8"},
      {"clip(rint(f), 0, 255)", "uint8"},            {"uint16(clip(f, 0, 65535))", "uint16"},
      {"uint16(clip(f, 0.99, 1e9))", "uint16"},      {"uint8(clip(f, 1, 200))", "uint8"},
      {"uint8(clip(f, 10, 5))", "uint8"},            {"uint16(clip(f, -9, -1))", "uint16"}};
  for (const auto& [expr, t] : clips) {
    const std::string prog = std::string("z = ") + expr, out = std::string(t) + " z";
    INFO(prog);
    ElementwiseKernel k("float32 f", out, prog, "clipcast");
    const DType dt = std::string(t) == "uint8" ? DType::UInt8 : DType::UInt16;
    Array z = poisoned(dt, {n});
    k(dev(f), z);
    require_equal(z, cpu(prog, {{"f", f.view()}}, {OutputDecl{"z", dt}}));
  }
  // And every 8- and 16-bit integer to float32 (the GPU's exponent trick).
  for (const DType dt : {DType::UInt8, DType::Int8, DType::UInt16, DType::Int16}) {
    const std::int64_t m = dtype_size(dt) == 1 ? 256 : 65536;
    HostArray a(dt, {m});
    for (std::int64_t k = 0; k < m; ++k) {
      if (dtype_size(dt) == 1) static_cast<std::uint8_t*>(a.data())[k] = static_cast<std::uint8_t>(k);
      else static_cast<std::uint16_t*>(a.data())[k] = static_cast<std::uint16_t>(k);
    }
    const std::string params = std::string(dtype_name(dt)) + " a";
    INFO(params);
    ElementwiseKernel k(params, "float32 z", "z = float32(a) * 0.5", "i2f");
    Array z = poisoned(DType::Float32, {m});
    k(dev(a), z);
    require_equal(z, cpu("z = float32(a) * 0.5", {{"a", a.view()}}));
  }
}

// The contiguous vector kernel converts float16 a 16-byte vector at a time
// (half.cuh's h2f_vec/f2h_vec): PTX's cvt where no lane is a NaN, the
// bit-exact path where one is. Vectors with and without NaNs, NaNs of both
// signs and many payloads: the bits must be NumPy's (the CPU evaluator's),
// which the sign operations keep exactly.
TEST_CASE("float16 NaNs keep sign and payload through the vector kernel's per-vector NaN test", "[gpu][elementwise]") {
  std::mt19937_64 rng(run_seed());
  const std::int64_t n = (1 << 16) + 5;  // a tail past the last whole vector too
  auto halves = [&](int nan_in) {
    HostArray a(DType::Float16, {n});
    auto* b = static_cast<std::uint16_t*>(a.data());
    for (std::int64_t k = 0; k < n; ++k) {
      std::uint16_t h = static_cast<std::uint16_t>(rng() & 0xffff);
      if ((h & 0x7c00) == 0x7c00) h &= 0xbfff;  // finite: exponent below 31
      if (rng() % nan_in == 0) h = static_cast<std::uint16_t>((rng() & 0x8000) | 0x7c00 | (1 + rng() % 0x3ff));
      b[k] = h;
    }
    return a;
  };
  const HostArray x = halves(40), y = halves(97);
  for (const char* prog : {"z = -x", "z = abs(x)", "z = copysign(x, y)", "z = where(y > 0, x, y)", "z = x"}) {
    INFO(prog);
    ElementwiseKernel k("float16 x, float16 y", "float16 z", prog, "nanbits");
    Array z = poisoned(DType::Float16, {n});
    k(dev(x), dev(y), z);
    const HostArray want = cpu(prog, {{"x", x.view()}, {"y", y.view()}});
    const Array got = z.to_host();
    const auto* g = static_cast<const std::uint16_t*>(got.data());
    const auto* w = static_cast<const std::uint16_t*>(want.data());
    std::int64_t bad = 0, first = -1;
    for (std::int64_t q = 0; q < n; ++q)
      if (g[q] != w[q]) bad++, first = first < 0 ? q : first;
    INFO("first differing element " << first << ": got 0x" << std::hex << (first >= 0 ? g[first] : 0) << ", want 0x"
                                    << (first >= 0 ? w[first] : 0));
    CHECK(bad == 0);
  }
}

// One-byte programs with one array input take two 16-byte vectors a step, both
// loaded first, and move every 8- and 16-bit vector as 32-bit words
// (gpu/layouts/contiguous.cpp's vector_steps and vload). Lengths around the
// step's edges (a second vector of the last step missing, the scalar tail),
// views one element off alignment (the scalar kernel), and in place.
TEST_CASE("Byte vectors two a step, as words: every length and in place", "[gpu][elementwise]") {
  std::mt19937_64 rng(run_seed());
  const std::int64_t lengths[] = {1, 15, 16, 17, 31, 32, 33, 47, 48, 4096 + 16 * 3 + 5, (1 << 20) + 16, (1 << 22) + 33};
  struct Prog { const char* in; const char* out; const char* text; DType in_t, out_t; };
  const Prog progs[] = {
      {"uint8 x", "uint8 z", "z = uint8(clip(rint(float32(x)*1.2 + 10), 0, 255))", DType::UInt8, DType::UInt8},
      {"uint8 x", "bool z", "z = (x > 100) & (x < 200)", DType::UInt8, DType::Bool},
      {"int8 x", "int8 z", "z = -x * 3 + 1", DType::Int8, DType::Int8},
      {"uint16 x", "uint16 z", "z = x * 7 + (x >> 3)", DType::UInt16, DType::UInt16},
      {"uint8 x", "float32 z", "z = float32(x) * 0.25", DType::UInt8, DType::Float32}};
  for (const Prog& p : progs) {
    ElementwiseKernel k(p.in, p.out, p.text, "bytes");
    for (const std::int64_t n : lengths) {
      INFO(p.text << " on " << n << " elements");
      HostArray h(p.in_t, {n + 1});
      auto* b = static_cast<unsigned char*>(h.data());
      for (std::size_t q = 0; q < h.nbytes(); ++q) b[q] = static_cast<unsigned char>(rng());
      HostArray h0(p.in_t, {n});
      std::memcpy(h0.data(), h.data(), h0.nbytes());
      const HostArray want = cpu(p.text, {{"x", h0.view()}}, {OutputDecl{"z", p.out_t}});
      Array x = dev(h);
      ArrayView aligned = x.view();
      aligned.shape = Shape{n};
      Array z = poisoned(p.out_t, {n});
      k(aligned, z);
      require_equal(z, want);
      // One element off alignment: the same values through the scalar path.
      HostArray h1(p.in_t, {n});
      std::memcpy(h1.data(), static_cast<const char*>(h.data()) + dtype_size(p.in_t), h1.nbytes());
      ArrayView off = x.view();
      off.shape = Shape{n};
      off.data = static_cast<char*>(off.data) + dtype_size(p.in_t);
      Array z1 = poisoned(p.out_t, {n});
      k(off, z1);
      require_equal(z1, cpu(p.text, {{"x", h1.view()}}, {OutputDecl{"z", p.out_t}}));
      if (p.in_t == p.out_t) {  // in place: z is x
        Array y = dev(h0);
        k(y, y);
        require_equal(y, want);
      }
    }
  }
}

// The runtime's host side, without a GPU: Array in host memory, DLPack round
// trips, scalar arguments, ElementwiseKernel's parameter lists and checks, the
// raw CUDA renderer (compiled by NVRTC for sm_90, which needs no GPU), and
// evaluate() on the CPU evaluator.
#include <complex>
#include <cstring>
#include <string>
#include <vector>

#include "catch.hpp"
#include "lang/check.hpp"
#include "gpu/codegen.hpp"
#include "gpu/compile.hpp"
#include "core/driver.hpp"
#include "cujit/arg.hpp"
#include "cujit/dlpack.hpp"
#include "cujit/elementwise.hpp"
#include "cujit/error.hpp"
#include "cujit/evaluate.hpp"
#include "core/half.hpp"
#include "gpu/kernel_key.hpp"
#include "gpu/launch.hpp"
#include "gpu/raw_cuda.hpp"

using namespace cujit;

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

HostArray iota_f32(const Shape& s) {
  HostArray a(DType::Float32, s);
  for (std::int64_t k = 0; k < a.size(); ++k) a.as<float>()[k] = static_cast<float>(k);
  return a;
}

ElementwiseOptions raw_mode(std::string preamble = "") {
  ElementwiseOptions o;
  o.raw_cuda = true;
  o.preamble = std::move(preamble);
  return o;
}

const DType kAll[] = {DType::Bool,    DType::Int8,     DType::Int16,   DType::Int32,   DType::Int64,
                      DType::UInt8,   DType::UInt16,   DType::UInt32,  DType::UInt64,  DType::Float16,
                      DType::BFloat16, DType::Float32, DType::Float64, DType::Complex64, DType::Complex128};

}  // namespace

TEST_CASE("Array: host arrays, adoption and strided copies", "[runtime]") {
  Array a = Array::empty(DType::Int32, {2, 3});
  CHECK(a.device() == Device::cpu());
  CHECK(a.nbytes() == 24);
  CHECK(a.view().is_c_contiguous());
  CHECK(static_cast<bool>(a));
  CHECK_FALSE(static_cast<bool>(Array()));

  HostArray h = iota_f32({3, 4});
  Array adopted(h);
  CHECK(adopted.data() == h.data());  // no copy

  // A transposed view (strides swapped) packs into C order.
  ArrayView t = h.view();
  t.shape = Shape{4, 3};
  t.strides = Shape{4, 16};
  Array c = Array::copy_of(t, Device::cpu());
  for (int r = 0; r < 4; ++r)
    for (int q = 0; q < 3; ++q) CHECK(c.as<float>()[r * 3 + q] == static_cast<float>(q * 4 + r));

  // Every other element, backwards.
  ArrayView rev = h.view();
  rev.shape = Shape{6};
  rev.strides = Shape{-8};
  rev.data = h.as<float>() + 10;
  Array r = rev.shape.size() ? Array::copy_of(rev, Device::cpu()) : Array();
  for (int k = 0; k < 6; ++k) CHECK(r.as<float>()[k] == static_cast<float>(10 - 2 * k));

  // Broadcast (stride 0).
  ArrayView b = h.view();
  b.shape = Shape{3, 4};
  b.strides = Shape{0, 4};
  Array bc = Array::copy_of(b, Device::cpu());
  for (int k = 0; k < 12; ++k) CHECK(bc.as<float>()[k] == static_cast<float>(k % 4));

  CHECK(code_of([&] { a.copy_from(h.view()); }) == ErrorCode::Usage);  // dtype/shape mismatch
  Array empty = Array::empty(DType::Float64, {0, 5});
  CHECK(empty.size() == 0);
  empty.copy_from(Array::empty(DType::Float64, {0, 5}).view());
  CHECK(code_of([] { Array::empty(DType::Float32, {-1}); }) == ErrorCode::Data);
}

TEST_CASE("Array: device copies without a GPU are Device errors", "[runtime]") {
  if (gpu_available()) return;  // the GPU tests cover this machine
  CHECK(code_of([] { Array::empty(DType::Float32, {4}, Device::cuda(0)); }) == ErrorCode::Device);
  Array h = Array::empty(DType::Float32, {4});
  CHECK(code_of([&] { h.to_device(0); }) == ErrorCode::Device);
}

TEST_CASE("DLPack: dtypes round-trip, bool is kDLBool", "[runtime][dlpack]") {
  for (DType t : kAll) {
    DLDataType d = to_dlpack_dtype(t);
    CHECK(d.lanes == 1);
    CHECK(d.bits == dtype_size(t) * 8);
    CHECK(from_dlpack_dtype(d) == t);
  }
  CHECK(to_dlpack_dtype(DType::Bool).code == kDLPackBoolCode);
  CHECK(to_dlpack_dtype(DType::BFloat16).code == kDLBfloat);
  CHECK(to_dlpack_dtype(DType::Complex64).code == kDLComplex);
  CHECK(to_dlpack_dtype(DType::Complex64).bits == 64);
  CHECK_FALSE(from_dlpack_dtype(DLDataType{kDLFloat, 8, 1}));
  CHECK_FALSE(from_dlpack_dtype(DLDataType{kDLFloat, 32, 4}));
  CHECK_FALSE(from_dlpack_dtype(DLDataType{kDLOpaqueHandle, 64, 1}));
}

TEST_CASE("DLPack: export and import of host memory share it", "[runtime][dlpack]") {
  for (DType t : kAll) {
    Array a = Array::empty(t, {3, 5});
    std::memset(a.data(), 0x3c, a.nbytes());
    std::weak_ptr<void> alive = a.owner();
    DLManagedTensor* m = to_dlpack(a);
    a = Array();  // the tensor keeps the memory
    REQUIRE_FALSE(alive.expired());
    CHECK(m->dl_tensor.device.device_type == kDLCPU);
    CHECK(m->dl_tensor.ndim == 2);
    CHECK(m->dl_tensor.shape[0] == 3);
    CHECK(m->dl_tensor.shape[1] == 5);
    CHECK(m->dl_tensor.strides[0] == 5);  // elements, not bytes
    CHECK(m->dl_tensor.strides[1] == 1);
    ArrayView v = from_dlpack(m);
    CHECK(v.dtype == t);
    CHECK(v.device == Device::cpu());
    CHECK(v.shape == Shape{3, 5});
    CHECK(v.strides == ArrayView::contiguous_strides(v.shape, t));
    CHECK(v.data == m->dl_tensor.data);
    CHECK(static_cast<unsigned char*>(v.data)[0] == 0x3c);
    m->deleter(m);
    CHECK(alive.expired());
  }
}

TEST_CASE("DLPack: foreign tensors: strides, offsets, devices, errors", "[runtime][dlpack]") {
  std::vector<double> buf(24);
  for (std::size_t k = 0; k < buf.size(); ++k) buf[k] = static_cast<double>(k);
  std::int64_t shape[2] = {3, 4};
  std::int64_t strides[2] = {1, 6};  // a column-major-ish view in elements
  DLManagedTensor m{};
  m.dl_tensor.data = buf.data();
  m.dl_tensor.device = DLDevice{kDLCPU, 0};
  m.dl_tensor.ndim = 2;
  m.dl_tensor.dtype = DLDataType{kDLFloat, 64, 1};
  m.dl_tensor.shape = shape;
  m.dl_tensor.strides = strides;
  m.dl_tensor.byte_offset = 16;
  ArrayView v = from_dlpack(&m);
  CHECK(v.data == buf.data() + 2);
  CHECK(v.strides == Shape{8, 48});
  Array c = Array::copy_of(v, Device::cpu());
  CHECK(c.as<double>()[0] == 2.0);
  CHECK(c.as<double>()[1] == 8.0);   // (0, 1): offset 2 + 6
  CHECK(c.as<double>()[4] == 3.0);   // (1, 0)

  m.dl_tensor.strides = nullptr;  // C order
  m.dl_tensor.byte_offset = 0;
  CHECK(from_dlpack(&m).strides == Shape{32, 8});

  m.dl_tensor.device = DLDevice{kDLCUDA, 3};
  CHECK(from_dlpack(&m).device == Device::cuda(3));
  m.dl_tensor.device = DLDevice{kDLCUDAManaged, 1};
  CHECK(from_dlpack(&m).device == Device::cuda(1));
  m.dl_tensor.device = DLDevice{kDLCUDAHost, 0};
  CHECK(from_dlpack(&m).device == Device::cpu());

  std::string what;
  m.dl_tensor.device = DLDevice{kDLVulkan, 0};
  CHECK(code_of([&] { from_dlpack(&m); }, &what) == ErrorCode::Data);
  CHECK(what.find("device type") != std::string::npos);
  m.dl_tensor.device = DLDevice{kDLCPU, 0};
  m.dl_tensor.dtype = DLDataType{kDLFloat, 64, 2};
  CHECK(code_of([&] { from_dlpack(&m); }, &what) == ErrorCode::Data);
  CHECK(what.find("2 lanes") != std::string::npos);
  m.dl_tensor.dtype = DLDataType{kDLFloat, 64, 1};
  std::int64_t big[9] = {1, 1, 1, 1, 1, 1, 1, 1, 1};
  m.dl_tensor.shape = big;
  m.dl_tensor.ndim = 9;
  CHECK(code_of([&] { from_dlpack(&m); }) == ErrorCode::Data);
  CHECK(code_of([&] { from_dlpack(nullptr); }) == ErrorCode::Usage);

  // A 0-d tensor.
  m.dl_tensor.ndim = 0;
  ArrayView s = from_dlpack(&m);
  CHECK(s.shape.ndim == 0);
  CHECK(s.size() == 1);
}

TEST_CASE("Arg: weak and typed scalars", "[runtime]") {
  Arg i(7);
  CHECK(i.kind() == Arg::Kind::WeakInt);
  CHECK(i.view().dtype == DType::Int64);
  CHECK(*static_cast<const std::int64_t*>(i.view().data) == 7);
  Arg f(2.5f);
  CHECK(f.kind() == Arg::Kind::WeakFloat);
  CHECK(*static_cast<const double*>(f.view().data) == 2.5);
  Arg c(std::complex<double>(1, -2));
  CHECK(c.kind() == Arg::Kind::WeakComplex);
  CHECK(c.view().dtype == DType::Complex128);
  Arg b(true);
  CHECK(b.kind() == Arg::Kind::Typed);
  CHECK(b.view().dtype == DType::Bool);
  Arg big(std::uint64_t{1} << 63);
  CHECK(big.kind() == Arg::Kind::Typed);
  CHECK(big.view().dtype == DType::UInt64);
  CHECK(*static_cast<const std::uint64_t*>(big.view().data) == (std::uint64_t{1} << 63));

  Arg h = Arg::typed(DType::Float16, 1.5);
  CHECK(h.view().dtype == DType::Float16);
  CHECK(*static_cast<const std::uint16_t*>(h.view().data) == 0x3e00);
  Arg sat = Arg::typed(DType::Int8, 1000.0);  // the language's cast saturates
  CHECK(*static_cast<const std::int8_t*>(sat.view().data) == 127);
  Arg wrap = Arg::typed(DType::UInt8, 257);  // int -> int wraps
  CHECK(*static_cast<const std::uint8_t*>(wrap.view().data) == 1);
  Arg re = Arg::typed(DType::Float32, std::complex<double>(3, 4));
  CHECK(*static_cast<const float*>(re.view().data) == 3.0f);
  // Copies keep their own value.
  std::vector<Arg> args{h, Arg::typed(DType::Int32, -5)};
  CHECK(args[0].view().data != h.view().data);
  CHECK(*static_cast<const std::int32_t*>(args[1].view().data) == -5);
  // A host 0-d array converts from its dtype.
  HostArray z(DType::Float64, Shape{});
  z.as<double>()[0] = -1.75;
  Arg za(z);
  CHECK(za.is_array());
  CHECK(*static_cast<const std::int16_t*>(za.as_typed(DType::Int16).view().data) == -1);
}

TEST_CASE("ElementwiseKernel: parameter lists and checks at construction", "[runtime][elementwise]") {
  std::string what;
  CHECK_NOTHROW(ElementwiseKernel("float32 x, T y, raw T z", "T out", "out = x + y * z[0]", "k"));
  CHECK(ElementwiseKernel("T x", "T y", "y = x", "copy").num_inputs() == 1);
  CHECK(ElementwiseKernel("", "float64 y", "y = 1.5", "constant").num_inputs() == 0);
  CHECK(code_of([] { ElementwiseKernel("float32", "float32 y", "y = 1", "k"); }, &what) == ErrorCode::Usage);
  CHECK(what.find("TYPE NAME") != std::string::npos);
  CHECK(code_of([] { ElementwiseKernel("float x", "float32 y", "y = x", "k"); }, &what) == ErrorCode::Usage);
  CHECK(what.find("ambiguous") != std::string::npos);
  CHECK(code_of([] { ElementwiseKernel("float32 x, float32 x", "float32 y", "y = x", "k"); }) == ErrorCode::Usage);
  CHECK(code_of([] { ElementwiseKernel("float32 x", "float32 x", "x = 1", "k"); }) == ErrorCode::Usage);
  CHECK(code_of([] { ElementwiseKernel("float32 x", "", "", "k"); }) == ErrorCode::Usage);
  CHECK(code_of([] { ElementwiseKernel("float32 x", "raw float32 y", "y = x", "k"); }) == ErrorCode::Usage);
  CHECK(code_of([] { ElementwiseKernel("float32 x", "float32 y", "y = x", "cj_k"); }) == ErrorCode::Usage);
  CHECK(code_of([] { ElementwiseKernel("float32 x", "float32 y", "y = x", "my kernel"); }) == ErrorCode::Usage);
  CHECK(code_of([] { ElementwiseKernel("float32 i", "float32 y", "y = i", "k"); }) == ErrorCode::Usage);
  // With concrete types the whole program is checked now.
  CHECK(code_of([] { ElementwiseKernel("float32 x", "float32 y", "y = sinn(x)", "k"); }, &what) == ErrorCode::Program);
  CHECK(what.find("did you mean 'sin'") != std::string::npos);
  CHECK(code_of([] { ElementwiseKernel("float32 x", "float32 y", "y = x ^ 2", "k"); }) == ErrorCode::Program);
  CHECK(code_of([] { ElementwiseKernel("float32 x", "float32 y, float32 z", "y = x", "k"); }, &what) == ErrorCode::Program);
  CHECK(what.find("never assigned") != std::string::npos);
  // With placeholders, syntax errors still show at construction.
  CHECK(code_of([] { ElementwiseKernel("T x", "T y", "y = (x", "k"); }) == ErrorCode::Program);
  // Raw CUDA mode checks the parameter lists only; a preamble needs it.
  CHECK_NOTHROW(ElementwiseKernel("T x", "T y", "y = x +* garbage", "k", raw_mode()));
  ElementwiseOptions preamble_only;
  preamble_only.preamble = "int f();";
  CHECK(code_of([&] { ElementwiseKernel("T x", "T y", "y = x", "k", preamble_only); }) == ErrorCode::Usage);
  CHECK(code_of([] { ElementwiseKernel("T n", "T y", "y = n", "k", raw_mode()); }) == ErrorCode::Usage);
}

TEST_CASE("ElementwiseKernel: argument errors come before any device work", "[runtime][elementwise]") {
  ElementwiseKernel k("T x, T y", "T z", "z = x + y", "add");
  HostArray a = iota_f32({4});
  std::string what;
  CHECK(code_of([&] { k(a.view()); }, &what) == ErrorCode::Usage);  // 1 argument for 2 inputs
  CHECK(what.find("takes 2 inputs and 1 output") != std::string::npos);
  CHECK(code_of([&] { k(a.view(), a.view(), 3.0); }, &what) == ErrorCode::Usage);  // a scalar output
  ArrayView on_gpu = ArrayView::cuda(reinterpret_cast<float*>(0x1000), {4});
  CHECK(code_of([&] { k(on_gpu, on_gpu, a.view()); }, &what) == ErrorCode::Usage);  // a host output, device inputs
  CHECK(what.find("host memory") != std::string::npos);
  HostArray d(DType::Float64, Shape{4});
  ElementwiseKernel k2("T x, T y", "float32 z", "z = x + y", "add2");
  CHECK(code_of([&] { k2.call({a.view(), d.view()}); }, &what) == ErrorCode::Data);
  CHECK(what.find("arguments of one placeholder must agree") != std::string::npos);
  ElementwiseKernel k3("raw T x", "T z", "z = x[i]", "gather");
  CHECK(code_of([&] { k3.call({1.5}); }, &what) == ErrorCode::Usage);
  CHECK(what.find("raw parameter 'x' needs an array") != std::string::npos);
  ElementwiseKernel k4("float32 x", "float32 z", "z = x", "fixed");
  HostArray i32(DType::Int32, Shape{4});
  CHECK(code_of([&] { k4.call({i32.view()}); }, &what) == ErrorCode::Data);
  CHECK(what.find("declares it float32") != std::string::npos);
}

TEST_CASE("raw CUDA renderer: kernels compile with NVRTC for every layout kind", "[runtime][elementwise][nvrtc]") {
  auto make = [](std::vector<Param> in, std::vector<Var> out) {
    Program p;
    p.ast.source = "raw";
    p.inputs = std::move(in);
    p.outputs = std::move(out);
    return p;
  };
  RawCudaKernel k;
  k.preamble = "__device__ T twice(T v) { return v + v; }";
  k.typedefs = {{"T", DType::Float32}, {"H", DType::Float16}, {"C", DType::Complex64}};
  k.operation = "y = twice(x) + a + (T)z[i % 3] + (T)__half2float(h); c = C(x, (float)n);";
  Program p = make({Param{"x", DType::Float32}, Param{"a", DType::Float64, true}, Param{"z", DType::Int32, false, true},
                    Param{"h", DType::Float16}},
                   {Var{"y", DType::Float32, false, std::nullopt}, Var{"c", DType::Complex64, false, std::nullopt}});
  std::vector<KernelLayout> layouts = {contiguous_layout(p), contiguous_layout(p, 1, true), strided_layout(p, 3),
                                       strided_layout(p, 2, true)};
  KernelLayout uniform = contiguous_layout(p);
  uniform.inputs[3] = Access::Uniform;
  uniform.inputs[0] = Access::Value;
  layouts.push_back(uniform);
  for (const KernelLayout& l : layouts) {
    std::string src = render_raw_cuda(k, p, l, "rawk");
    CompileOptions co;
    co.arch = 90;
    INFO(src);
    CompiledKernel ck = compile_cuda(src, "rawk", co);
    CHECK_FALSE(ck.cubin.empty());
  }
  // The Layout struct is the ABI's: 32-bit layouts carry divisor constants.
  CHECK(render_raw_cuda(k, p, layouts[2], "rawk").find("magic[3]") != std::string::npos);
  CHECK(render_raw_cuda(k, p, layouts[3], "rawk").find("magic[") == std::string::npos);
  // The user's own mistake is visible in the source with the operation marked.
  std::string src = render_raw_cuda(k, p, layouts[0], "rawk");
  CHECK(src.find("// ---- operation ----") != std::string::npos);
  CHECK(src.find("typedef __half H;") != std::string::npos);
}

TEST_CASE("evaluate: host arrays run on the CPU evaluator", "[runtime][evaluate]") {
  HostArray x = iota_f32({4});
  auto outs = evaluate("out = x * 2 + a", {{"x", x.view()}, {"a", 1}});
  REQUIRE(outs.size() == 1);
  CHECK(outs[0].name == "out");
  CHECK(outs[0].array.dtype() == DType::Float32);
  CHECK(outs[0].array.device() == Device::cpu());
  CHECK(outs[0].array.as<float>()[3] == 7.0f);
  // Raw inputs and the first raw input's shape.
  auto rev = evaluate("out = x[n - 1 - i]", {{"x", x.view()}});
  CHECK(rev[0].array.as<float>()[0] == 3.0f);
  // Several outputs, declared dtypes, typed scalars.
  EvaluateOptions o;
  o.output_dtypes = {{"b", DType::Int16}};
  auto two = evaluate("t = x + s; b = t; c = t > 2", {{"x", x.view()}, {"s", Arg::typed(DType::Float64, 0.5)}}, o);
  REQUIRE(two.size() == 2);
  CHECK(two[0].array.dtype() == DType::Int16);
  CHECK(two[1].array.dtype() == DType::Bool);
  CHECK(two[0].array.as<std::int16_t>()[3] == 3);
  CHECK(code_of([&] { evaluate("out = x[i + 1]", {{"x", x.view()}}); }) == ErrorCode::Data);
  CHECK(code_of([&] { evaluate("out = sinn(x)", {{"x", x.view()}}); }) == ErrorCode::Program);
}

TEST_CASE("jitcache precompiles the kernel a launch with aligned operands uses: equal cache keys for every dtype",
          "[runtime][cache]") {
  // issue 11: jitcache planned 4-wide vectors where the launcher plans 8/16-wide ones for
  // 16- and 8-bit dtypes, so a precompiled cache never served a launch. One function now
  // chooses the vector step for both.
  CompileOptions co;
  co.arch = 90;
  for (int t = 0; t < kNumDTypes; ++t) {
    const DType dt = static_cast<DType>(t);
    CAPTURE(dtype_name(dt));
    Program p = compile_program("out = x + x", {Param{"x", dt, false, false}});
    // The launcher's path: plan_launch on 16-byte-aligned contiguous operands.
    const Shape shape{1000};
    OperandView in{0x10000, dt, shape, ArrayView::contiguous_strides(shape, dt), false};
    OperandView out{0x20000, p.outputs[0].dtype, shape, ArrayView::contiguous_strides(shape, p.outputs[0].dtype), false};
    LaunchPlan plan = plan_launch(p, {in}, {out}, GpuOptions{}.max_vector);
    const cache::Key launched = kernel_cache_key(generate_source(p, plan.layout, "cujit_kernel"), co);
    // jitcache's path: `jitcache compile --layout contiguous`.
    std::vector<KernelLayout> pre = precompile_layouts(p, "contiguous", 1);
    REQUIRE(!pre.empty());
    CHECK(pre[0] == plan.layout);
    CHECK(kernel_cache_key(generate_source(p, pre[0], "cujit_kernel"), co).hex() == launched.hex());
    if (dt == DType::Int8 || dt == DType::UInt8 || dt == DType::Bool) CHECK(plan.layout.vec == 16);
    if (dt == DType::Float16 || dt == DType::BFloat16 || dt == DType::Int16) CHECK(plan.layout.vec == 8);
  }
}

// Programs with reductions on the GPU, end to end through the one call path
// (api/call -> api/reduce_call -> the plan's passes -> the reduction kernels):
//  - every NumPy reference case (tests/data/reduction_cases.txt) on device
//    arrays laid out contiguous, transposed and strided, against NumPy's values;
//  - fused programs (maps, epilogues, results feeding reductions, axes that are
//    not adjacent, NaN-ignoring ones, in-place updates) on fresh random data,
//    into outputs poisoned first, against the CPU evaluator, and the same bits
//    on a second run and on another stream.
// Run alone with `cujit_gpu_tests "[reduction-gpu]"`.
#include <algorithm>
#include <atomic>
#include <cstdio>
#include <mutex>
#include <thread>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "api/call.hpp"
#include "api/programs.hpp"
#include "catch.hpp"
#include "cpu/eval.hpp"
#include "cujit/error.hpp"
#include "cujit/evaluate.hpp"
#include "gpu_util.hpp"
#include "unit/reference.hpp"

using namespace cujit;
using namespace cujit::gputest;

namespace {

const std::string kData = CUJIT_TEST_DATA;

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

enum class Layout { Contiguous, Transposed, Strided };
const char* layout_name(Layout l) {
  return l == Layout::Contiguous ? "contiguous" : l == Layout::Transposed ? "transposed" : "strided";
}

// `a` on the device in layout `l`: its axes stored in reverse order, or every
// other element of a buffer twice as long (the gaps poisoned).
struct OnDevice {
  Array buffer;
  ArrayView view;
};
OnDevice place(const HostArray& a, Layout l) {
  const Shape& s = a.shape();
  const auto item = static_cast<std::int64_t>(dtype_size(a.dtype()));
  OnDevice r;
  if (l == Layout::Contiguous || (l == Layout::Transposed && s.ndim < 2)) {
    r.buffer = Array::copy_of(a.view(), Device::cuda(0));
    r.view = r.buffer.view();
    return r;
  }
  Shape strides;
  strides.ndim = s.ndim;
  std::int64_t total = 1, st = l == Layout::Strided ? 2 * item : item;
  if (l == Layout::Transposed)
    for (int d = 0; d < s.ndim; ++d) strides[d] = st, st *= s[d];
  else
    for (int d = s.ndim - 1; d >= 0; --d) strides[d] = st, st *= s[d];
  total = std::max<std::int64_t>(1, (l == Layout::Strided ? 2 : 1) * a.size());
  HostArray buf(a.dtype(), Shape{total});
  std::memset(buf.data(), 0xA5, buf.nbytes());
  auto* dst = static_cast<unsigned char*>(buf.data());
  for (std::int64_t k = 0; k < a.size(); ++k) {
    std::int64_t flat = k, off = 0;
    for (int d = s.ndim - 1; d >= 0; --d) off += (flat % s[d]) * strides[d], flat /= s[d];
    std::memcpy(dst + off, static_cast<const unsigned char*>(a.data()) + k * item, static_cast<std::size_t>(item));
  }
  r.buffer = Array::copy_of(buf.view(), Device::cuda(0));
  r.view = r.buffer.view();
  r.view.shape = s;
  r.view.strides = strides;
  return r;
}

HostArray to_host(const ArrayView& v) {
  Array h = Array::copy_of(v, Device::cpu());
  HostArray out(v.dtype, v.shape);
  std::memcpy(out.data(), h.view().data, out.nbytes());
  return out;
}

// "" when the case passes, else what went wrong (Catch2 assertions are for one thread).
std::string run_case(const ref::RefCase& c, Layout layout) {
  std::vector<OnDevice> placed;
  std::vector<NamedArg> args;
  for (const auto& in : c.inputs) placed.push_back(place(in.array, layout));
  for (std::size_t k = 0; k < c.inputs.size(); ++k) args.push_back(NamedArg{c.inputs[k].name, placed[k].view});
  EvaluateOptions o;
  o.device = Device::cuda(0);
  const std::string where = "case " + c.id + " (reduction_cases.txt:" + std::to_string(c.line) + "), " +
                            layout_name(layout) + "\n  program: " + c.program;
  if (c.error) {
    try {
      evaluate(c.program, args, o);
      return where + "\n  expected the error: " + *c.error;
    } catch (const Error& e) {
      if (first_line(e.what()) == *c.error && e.code() == ErrorCode::Data) return "";
      return where + "\n  error: " + e.what() + "\n  expected: " + *c.error;
    }
  }
  NamedArrays outs;
  try {
    outs = evaluate(c.program, args, o);
  } catch (const Error& e) {
    return where + "\n  failed: " + e.what();
  }
  if (outs.size() != c.outputs.size())
    return where + "\n  " + std::to_string(outs.size()) + " outputs, expected " + std::to_string(c.outputs.size());
  for (std::size_t k = 0; k < outs.size(); ++k) {
    const ref::RefOutput& want = c.outputs[k];
    const ArrayView got = outs[k].array.view();
    if (outs[k].name != want.name || got.dtype != want.array.dtype() || got.shape != want.array.shape())
      return where + "\n  output " + outs[k].name + ": " + std::string(dtype_name(got.dtype)) + " " +
             ref::shape_to_string(got.shape) + ", expected " + want.name + ": " + std::string(dtype_name(want.array.dtype())) +
             " " + ref::shape_to_string(want.array.shape());
    const HostArray h = to_host(got);
    std::string why;
    // NumPy's result and the GPU's are each within the case's tolerance of
    // the exact one, in another order of accumulation: so within twice it of
    // each other (as tests/gpu/test_reference_gpu.cpp compares with the CPU's).
    if (!ref::values_match(h.dtype(), h.data(), want.array.data(), h.size(), 2 * want.tol, &why))
      return where + "\n  output " + want.name + ": " + why;
  }
  return "";
}

// A program run through the one call path with every output given and
// poisoned first; returns the outputs on the host.
std::vector<HostArray> run_given(const std::string& program, const std::vector<std::pair<std::string, HostArray>>& ins,
                                 const std::vector<Shape>& out_shapes, CUstream stream, bool on_gpu) {
  ProgramRequest req;
  req.source = program;
  for (const auto& [name, a] : ins) req.params.push_back(Param{name, a.dtype(), false, false});
  const auto g = checked_program(req);
  const Program& p = g->program();
  Call c(*g);
  c.where = on_gpu ? Device::cuda(0) : Device::cpu();
  c.stream = stream;
  std::vector<Array> in_arrays, out_arrays;
  for (std::size_t k = 0; k < ins.size(); ++k) {
    in_arrays.push_back(Array::copy_of(ins[k].second.view(), c.where));
    c.inputs[k] = in_arrays.back().view();
  }
  for (std::size_t o = 0; o < p.outputs.size(); ++o) {
    if (p.outputs[o].input >= 0) continue;
    HostArray poison(p.outputs[o].dtype, out_shapes[o]);
    std::memset(poison.data(), 0xA5, poison.nbytes());
    out_arrays.push_back(Array::copy_of(poison.view(), c.where));
    c.outputs[o] = out_arrays.back().view();
    c.given[o] = true;
  }
  CallHooks h;
  h.wait = true;
  run_call(c, h);
  std::vector<HostArray> r;
  std::size_t next = 0;
  for (std::size_t o = 0; o < p.outputs.size(); ++o)
    r.push_back(to_host(p.outputs[o].input >= 0 ? in_arrays[static_cast<std::size_t>(p.outputs[o].input)].view()
                                               : out_arrays[next++].view()));
  return r;
}

HostArray random_array(DType t, const Shape& s, std::mt19937_64& rng, bool nans) {
  HostArray a(t, s);
  std::uniform_real_distribution<double> u(-2, 2);
  std::uniform_int_distribution<int> pick(0, 49);
  for (std::int64_t k = 0; k < a.size(); ++k) {
    const double v = nans && pick(rng) == 0 ? NAN : u(rng);
    if (t == DType::Float32) a.as<float>()[k] = static_cast<float>(v);
    else a.as<double>()[k] = v;
  }
  return a;
}

// "" when `got` is within atol + rtol |want| of `want` everywhere (NaN where
// NaN; bools and integers exact), else the first element that is not.
std::string close(const HostArray& got, const HostArray& want) {
  if (got.dtype() != want.dtype() || got.shape() != want.shape()) return "dtype or shape differs";
  const bool f32 = got.dtype() == DType::Float32, f64 = got.dtype() == DType::Float64;
  if (!f32 && !f64) return std::memcmp(got.data(), want.data(), got.nbytes()) == 0 ? "" : "values differ";
  const double atol = f32 ? 1e-4 : 1e-11, rtol = f32 ? 1e-5 : 1e-12;
  for (std::int64_t k = 0; k < got.size(); ++k) {
    const double g = f32 ? got.as<float>()[k] : got.as<double>()[k];
    const double w = f32 ? want.as<float>()[k] : want.as<double>()[k];
    if (std::isnan(g) && std::isnan(w)) continue;
    if (!(std::fabs(g - w) <= atol + rtol * std::fabs(w)))
      return "element " + std::to_string(k) + ": got " + std::to_string(g) + ", want " + std::to_string(w);
  }
  return "";
}

}  // namespace

TEST_CASE("reduction cases match NumPy on the GPU on contiguous, transposed and strided inputs", "[reduction-gpu]") {
  const auto cases = ref::load_eval_cases(kData + "/reduction_cases.txt");
  REQUIRE(cases.size() > 5000);
  // On every core (at least 8 threads): most of the time is NVRTC compiling
  // the kernels of each dtype, operation and variant once, and those compiles
  // run in parallel.
  std::atomic<std::size_t> next{0};
  std::mutex mu;
  std::vector<std::string> failures;
  auto work = [&] {
    for (std::size_t i; (i = next++) < cases.size();)
      for (Layout l : {Layout::Contiguous, Layout::Transposed, Layout::Strided}) {
        std::string why = run_case(cases[i], l);
        if (why.empty()) continue;
        std::lock_guard<std::mutex> lock(mu);
        failures.push_back(std::move(why));
      }
  };
  std::vector<std::thread> pool;
  const unsigned threads = std::max(8u, std::thread::hardware_concurrency());
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work);
  for (std::thread& t : pool) t.join();
  for (std::size_t k = 0; k < failures.size() && k < 20; ++k) FAIL_CHECK(failures[k]);
  const int failed = static_cast<int>(failures.size());
  CHECK(failed == 0);
}

TEST_CASE("fused reduction programs on the GPU match the CPU evaluator, into poisoned outputs, with the same bits every run",
          "[reduction-gpu]") {
  std::mt19937_64 rng(run_seed());
  struct Prog {
    const char* text;
    std::vector<Shape> ins;   // x, y, ... shapes
    std::vector<Shape> outs;  // per output
    bool nans = false;
  };
  // CUJIT_TEST_REDUCE_MAX set (compute-sanitizer runs): small shapes.
  const bool small = std::getenv("CUJIT_TEST_REDUCE_MAX") != nullptr;
  const Shape m = small ? Shape{30, 57} : Shape{300, 257}, cube = small ? Shape{6, 5, 7} : Shape{6, 50, 70};
  const std::vector<Prog> progs = {
      {"s = sum(x*y)", {m, m}, {Shape{}}},
      {"out = x / sum(x)", {m}, {m}},
      {"z = (x - mean(x, axis=1, keepdims=true)) / std(x, axis=1, keepdims=true)", {m}, {m}},
      {"s = sum(x, axis=0)\nt = max(x*y, axis=-1)", {m, m}, {Shape{m[1]}, Shape{m[0]}}},
      {"a = argmax(x, axis=0)\nb = argmin(x)", {m}, {Shape{m[1]}, Shape{}}, true},
      {"v = var(x, axis=1, ddof=1)\nw = std(x)", {m}, {Shape{m[0]}, Shape{}}},
      {"k = max(x, axis=(0, 2))\nq = sum(x*2, axis=(0, 2), keepdims=true)", {cube}, {Shape{cube[1]}, Shape{1, cube[1], 1}}},
      {"c = sum(max(x, axis=1))", {m}, {Shape{}}},
      {"ns = nansum(x, axis=1)\nf = nanmax(x, axis=0)", {m}, {Shape{m[0]}, Shape{m[1]}}, true},
      {"t = any(x > 1.5, axis=-1)\nu = all(x > -1.9, axis=0)", {m}, {Shape{m[0]}, Shape{m[1]}}},
      {"x -= mean(x, axis=0)", {m}, {m}},
      {"p = prod(1 + x*0.001, axis=1)\nr = mean(x*y, axis=(1, 2))", {cube, cube}, {Shape{cube[0], cube[2]}, Shape{cube[0]}}},
  };
  for (DType t : {DType::Float32, DType::Float64})
    for (const Prog& pg : progs) {
      std::vector<std::pair<std::string, HostArray>> ins;
      const char* names[] = {"x", "y"};
      for (std::size_t k = 0; k < pg.ins.size(); ++k) ins.emplace_back(names[k], random_array(t, pg.ins[k], rng, pg.nans));
      INFO(pg.text << " (" << dtype_name(t) << ")");
      const auto want = run_given(pg.text, ins, pg.outs, nullptr, false);
      const auto got = run_given(pg.text, ins, pg.outs, nullptr, true);
      REQUIRE(got.size() == want.size());
      for (std::size_t o = 0; o < got.size(); ++o) {
        // Sums in another order: |got - want| <= atol + rtol |want|, the
        // atol for results that cancel (a sum of 420 values near 0, x - mean).
        const std::string why = close(got[o], want[o]);
        if (!why.empty()) FAIL_CHECK(why);
      }
      Stream s(0);
      const auto again = run_given(pg.text, ins, pg.outs, s.get(), true);
      for (std::size_t o = 0; o < got.size(); ++o)
        CHECK(std::memcmp(again[o].data(), got[o].data(), got[o].nbytes()) == 0);
    }
}

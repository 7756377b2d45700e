// Every NumPy reference case (tests/data/eval_cases.txt) on the GPU, against
// NumPy's values and against the CPU evaluator, in every layout the launcher
// has: contiguous (vectorized, with a tail), strided (step 2 inside bigger
// buffers, gaps checked untouched), broadcast (1,) and (7,1), rows (per-row
// operands, 2-d and 3-d broadcasts, vectorized rows, padded rows at unaligned
// addresses, empty), scalar operands (a host 0-d value, a device 0-d array)
// and 64-bit indexing (forced).
//
//   CUJIT_GPU_REF_STRIDE=k  run the non-contiguous layouts on every k-th case
//                           (default 4; 1 = all); contiguous runs on all, and
//                           so does every layout of a program that updates an
//                           input in place (inplace.*: the operand is its output)
//   CUJIT_GPU_REF_SAMPLE=k  only every k-th case at all (for slow tools such as
//                           compute-sanitizer; default 1)
//   CUJIT_GPU_REF_FAILURES=path  write every failure there
//   CUJIT_TEST_SEED=s       replay a run's random inputs
//
// Comparisons (values_match): against NumPy with the case's tolerance (the
// contract's ulp bounds, 0 = bit-exact); against the CPU evaluator bit-exact
// where the tolerance is 0, else within twice it (each side is within the
// tolerance of the true value). Where the error depends on the inputs, the
// tolerance follows the rules of docs/language.md's Accuracy section
// (tolerance_rule below), never a blanket one. Cases run on a pool of threads,
// all sharing the kernel cache, so this also exercises concurrent compiles and
// launches.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "catch.hpp"
#include "plan/shapes.hpp"
#include "lang/check.hpp"
#include "cujit/error.hpp"
#include "cpu/eval.hpp"
#include "gpu_util.hpp"
#include "gpu/launch.hpp"
#include "unit/reference.hpp"

using namespace cujit;
using namespace cujit::gputest;

namespace {

const std::string kData = CUJIT_TEST_DATA;
constexpr std::int64_t kN = 1003;  // not a multiple of any vector width: the tail runs too

struct Report {
  std::mutex mu;
  std::vector<std::string> failures;
  std::map<std::string, int> runs;  // per variant
  std::atomic<std::size_t> count{0};
  void fail(const std::string& s) {
    std::lock_guard<std::mutex> lock(mu);
    failures.push_back(s);
    ++count;
    // The first ones at once, so a run cut short still says what went wrong.
    if (failures.size() <= 10) {
      std::printf("FAIL %s\n", s.c_str());
      std::fflush(stdout);
    }
  }
  void ran(const std::string& variant) {
    std::lock_guard<std::mutex> lock(mu);
    ++runs[variant];
  }
};

// RowsPadded: a 2-d array whose rows sit kPitchPad elements apart beyond
// their extent, the first element kRowsOffset elements into the buffer (so
// not 16-byte aligned).
// Transposed: an array of shape (..., R, C) stored as (..., C, R) and viewed
// with its last two axes swapped (x.T, x.transpose(0, 2, 1)).
enum class Place { Contig, Step2, HostValue, RowsPadded, Transposed };
constexpr std::int64_t kPitchPad = 5, kRowsOffset = 2;

Spread transposed_to_device(const HostArray& h, int device) {
  const std::size_t item = dtype_size(h.dtype());
  const Shape& sh = h.shape();
  const int nd = sh.ndim;
  const std::int64_t rows = sh[nd - 2], cols = sh[nd - 1], batch = h.size() / std::max<std::int64_t>(1, rows * cols);
  HostArray tmp(h.dtype(), Shape{std::max<std::int64_t>(1, h.size())});
  for (std::int64_t b = 0; b < batch; ++b)
    for (std::int64_t r = 0; r < rows; ++r)
      for (std::int64_t c = 0; c < cols; ++c)
        std::memcpy(static_cast<unsigned char*>(tmp.data()) + static_cast<std::size_t>((b * cols + c) * rows + r) * item,
                    static_cast<const unsigned char*>(h.data()) + static_cast<std::size_t>((b * rows + r) * cols + c) * item, item);
  Spread s;
  s.buffer = Array::copy_of(tmp.view(), Device::cuda(device));
  s.view = s.buffer.view();
  s.view.shape = sh;
  s.view.strides = ArrayView::contiguous_strides(sh, h.dtype());
  s.view.strides[nd - 2] = static_cast<std::int64_t>(item);
  s.view.strides[nd - 1] = rows * static_cast<std::int64_t>(item);
  return s;
}

Spread rows_to_device(const HostArray& h, int device) {
  const std::size_t item = dtype_size(h.dtype());
  const std::int64_t rows = h.shape()[0], cols = h.shape()[1], pitch = cols + kPitchPad;
  HostArray tmp(h.dtype(), Shape{kRowsOffset + std::max<std::int64_t>(1, rows) * pitch});
  std::memset(tmp.data(), 0xA5, tmp.nbytes());
  for (std::int64_t r = 0; r < rows; ++r)
    std::memcpy(static_cast<unsigned char*>(tmp.data()) + static_cast<std::size_t>(kRowsOffset + r * pitch) * item,
                static_cast<const unsigned char*>(h.data()) + static_cast<std::size_t>(r * cols) * item, static_cast<std::size_t>(cols) * item);
  Spread s;
  s.buffer = Array::copy_of(tmp.view(), Device::cuda(device));
  s.view = s.buffer.view();
  s.view.data = static_cast<unsigned char*>(s.view.data) + kRowsOffset * item;
  s.view.shape = h.shape();
  s.view.strides = Shape{pitch * static_cast<std::int64_t>(item), static_cast<std::int64_t>(item)};
  return s;
}

// One operand of a run: its values (compact, host) and where the GPU reads it.
struct Operand {
  bool weak = false;
  HostArray values;
  Place place = Place::Contig;
};

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// docs/language.md, Accuracy: how far a result may be from another machine's
// where the contract's ulps cannot hold, as per-element programs of the
// language on the case's own inputs (so the CPU evaluator broadcasts them as it
// does the case).
struct ToleranceRule {
  int min_tol = 0;    // CUDA's documented bound + 1, where it exceeds the contract's
  std::string scale;  // the tolerance is multiplied by this (condition number); "" = 1
  std::string floor;  // ulps are taken at max(|value|, this); "" = 0
};

ToleranceRule tolerance_rule(const ref::RefCase& c) {
  ToleranceRule r;
  if (c.outputs.size() != 1) return r;
  const std::string fn = c.id.substr(0, c.id.find('.'));
  const DType out = c.outputs[0].array.dtype();
  const bool complex_out = is_complex(out);
  const bool f64 = out == DType::Float64;
  if ((fn == "pow" || fn == "power") && complex_out && (c.program == "out = x ** y" || c.program == "out = power(x, y)")) {
    // exp(y log x): the relative error of y log x, |y| (|log|x|| + pi) times
    // the ulps of log x, carries over to the result on every machine.
    r.scale = "1 + abs(complex128(y)) * (abs(log(abs(complex128(x)))) + pi)";
  } else if (fn == "log1p" && complex_out && c.program == "out = log1p(x)") {
    // NumPy's log(|1 + x|): the rounding of 1 + x and of the modulus is an
    // absolute error of ulps of 1, whatever the size of the result.
    r.floor = "1 + 0 * abs(x)";
  } else if (fn == "lgamma" && c.program == "out = lgamma(x)") {
    // The reflection formula for x < 0 subtracts lgamma(1 - x): its ulps are
    // an absolute error, large next to the result near lgamma's zeros.
    r.floor = "where(float64(x) < 0, 1 + abs(lgamma(1 - float64(x))), 0)";
    if (f64) r.min_tol = 4 + 1;  // CUDA: 4 ulp outside [-23.0001, -2.2637], larger inside
  } else if (fn == "tgamma" && f64 && c.program == "out = tgamma(x)") {
    r.min_tol = 10 + 1;  // CUDA: 10 ulp
  } else if (fn == "erfc" && f64 && c.program == "out = erfc(x)") {
    r.min_tol = 5 + 1;  // CUDA: 5 ulp
  } else if (out == DType::Complex128 && c.program == "out = " + fn + "(x)" &&
             (fn == "exp" || fn == "exp2" || fn == "expm1" || fn == "log" || fn == "log2" || fn == "log10" ||
              fn == "sqrt" || fn == "sin" || fn == "cos" || fn == "tan" || fn == "sinh" || fn == "cosh" ||
              fn == "tanh" || fn == "arcsin" || fn == "arccos" || fn == "arctan" || fn == "arcsinh" ||
              fn == "arccosh" || fn == "arctanh")) {
    // Each combines two to four CUDA real functions of up to 2 ulp (sin, cos,
    // hypot, atan2, ...) where glibc's are within about half an ulp.
    r.min_tol = 3;
  }
  return r;
}

// A rule's programs, compiled once per case.
struct CompiledRule {
  int min_tol = 0;
  std::shared_ptr<Program> scale, floor;
};

CompiledRule compile_rule(const ToleranceRule& r, const std::vector<Param>& params) {
  CompiledRule c;
  c.min_tol = r.min_tol;
  auto one = [&](const std::string& e) -> std::shared_ptr<Program> {
    if (e.empty()) return nullptr;
    return std::make_shared<Program>(compile_program("out = float64(" + e + ")", params, {OutputDecl{"out", DType::Float64}}));
  };
  c.scale = one(r.scale);
  c.floor = one(r.floor);
  return c;
}

// The rule's values for one run, element by element (empty where it has none).
std::vector<double> rule_values(const std::shared_ptr<Program>& p, const std::vector<Input>& in, std::int64_t n) {
  if (!p) return {};
  std::vector<Output> o = evaluate_program(*p, in);
  const HostArray& a = o.at(0).array;
  if (a.size() != n) return {};  // a shape the rule does not follow: no loosening
  const auto* v = static_cast<const double*>(a.data());
  return std::vector<double>(v, v + n);
}

// An operand's elements after the run (an input updated in place), and
// whether the bytes between them still hold spread_to_device's filler.
HostArray gather_operand(const Spread& s, int step, bool* gaps_ok) {
  Array all = s.buffer.to_host();
  HostArray out(s.view.dtype, s.view.shape);
  const std::size_t item = dtype_size(s.view.dtype);
  const std::int64_t n = out.size();
  const auto* src = static_cast<const unsigned char*>(all.data());
  bool ok = true;
  for (std::int64_t e = 0; e < static_cast<std::int64_t>(all.nbytes() / item); ++e) {
    const unsigned char* at = src + static_cast<std::size_t>(e) * item;
    if (e % step == 0 && e / step < n) std::memcpy(static_cast<unsigned char*>(out.data()) + static_cast<std::size_t>(e / step) * item, at, item);
    else
      for (std::size_t b = 0; b < item; ++b) ok = ok && at[b] == 0xA5;
  }
  *gaps_ok = ok;
  return out;
}

// The same for an operand placed by rows_to_device: rows kPitchPad elements
// apart from kRowsOffset on, the filler before, between and after them.
HostArray gather_rows(const Spread& s, bool* gaps_ok) {
  Array all = s.buffer.to_host();
  HostArray out(s.view.dtype, s.view.shape);
  const std::size_t item = dtype_size(s.view.dtype);
  const std::int64_t cols = s.view.shape[1], pitch = cols + kPitchPad;
  const auto* src = static_cast<const unsigned char*>(all.data());
  bool ok = true;
  for (std::int64_t e = 0; e < static_cast<std::int64_t>(all.nbytes() / item); ++e) {
    const unsigned char* at = src + static_cast<std::size_t>(e) * item;
    const std::int64_t r = (e - kRowsOffset) / pitch, c = (e - kRowsOffset) % pitch;
    if (e >= kRowsOffset && r < s.view.shape[0] && c < cols)
      std::memcpy(static_cast<unsigned char*>(out.data()) + static_cast<std::size_t>(r * cols + c) * item, at, item);
    else
      for (std::size_t b = 0; b < item; ++b) ok = ok && at[b] == 0xA5;
  }
  *gaps_ok = ok;
  return out;
}

// Runs `g` on the operands, and the CPU evaluator on the same values; compares
// the two (with the case's tolerances), and with NumPy's values when
// `with_numpy`. Returns "" or what went wrong.
std::string run_variant(const GpuProgram& g, const std::vector<Operand>& ops, bool step2_out,
                        const std::vector<ref::RefOutput>& expected, bool with_numpy, const CompiledRule& rule) {
  const Program& p = g.program();
  // An input updated in place: the CPU evaluator updates a copy of it, the
  // GPU the operand itself, and the two results are compared like outputs.
  std::vector<HostArray> cpu_copy(ops.size());
  for (const Var& v : p.outputs)
    if (v.input >= 0) {
      const HostArray& h = ops[static_cast<std::size_t>(v.input)].values;
      cpu_copy[static_cast<std::size_t>(v.input)] = HostArray(h.dtype(), h.shape());
      std::memcpy(cpu_copy[static_cast<std::size_t>(v.input)].data(), h.data(), h.nbytes());
    }
  std::vector<Input> cpu_in;
  for (std::size_t k = 0; k < ops.size(); ++k)
    cpu_in.push_back(Input{p.inputs[k].name, cpu_copy[k].data() ? cpu_copy[k].view() : ops[k].values.view(), ops[k].weak,
                           p.inputs[k].raw});
  std::vector<Output> want;
  std::string cpu_error;
  try {
    want = evaluate_program(p, cpu_in);
  } catch (const Error& e) {
    if (e.code() != ErrorCode::Data) return std::string("CPU evaluator failed: ") + e.what();
    cpu_error = e.what();
  }

  const int dev = 0;
  std::vector<Spread> placed(ops.size());
  std::vector<ArrayView> in_views;
  for (std::size_t k = 0; k < ops.size(); ++k) {
    if (ops[k].weak || ops[k].place == Place::HostValue) {
      in_views.push_back(ops[k].values.view());
    } else {
      placed[k] = ops[k].place == Place::RowsPadded   ? rows_to_device(ops[k].values, dev)
                  : ops[k].place == Place::Transposed ? transposed_to_device(ops[k].values, dev)
                                                      : spread_to_device(ops[k].values, dev, ops[k].place == Place::Step2 ? 2 : 1);
      in_views.push_back(placed[k].view);
    }
  }
  Shape shape = broadcast_shape(p, in_views.data());
  for (std::size_t o = 0; o < want.size(); ++o)
    if (!want[o].in_place) {
      shape = want[o].array.shape();
      break;
    }
  const int ostep = step2_out ? 2 : 1;
  std::vector<Spread> outs;
  std::vector<ArrayView> out_views;
  for (const Var& v : p.outputs) {
    if (v.input >= 0) {  // its own operand, updated in place
      outs.emplace_back();
      out_views.push_back(in_views[static_cast<std::size_t>(v.input)]);
      continue;
    }
    outs.push_back(poisoned_output(v.dtype, shape, dev, ostep));
    out_views.push_back(outs.back().view);
  }
  try {
    g.launch(dev, in_views.data(), out_views.data());
    synchronize(dev);
  } catch (const Error& e) {
    if (!cpu_error.empty() && e.code() == ErrorCode::Data && cpu_error == e.what()) return "";
    return std::string("GPU run failed: ") + first_line(e.what()) + (cpu_error.empty() ? "" : " (CPU: " + cpu_error + ")");
  }
  if (!cpu_error.empty()) return "the CPU evaluator failed (" + cpu_error + ") but the GPU run did not";

  std::string problems;
  for (std::size_t o = 0; o < p.outputs.size(); ++o) {
    bool gaps_ok = true;
    const int k = p.outputs[o].input;
    const Place kp = k < 0 ? Place::Contig : ops[static_cast<std::size_t>(k)].place;
    HostArray got = k < 0                     ? gather(outs[o], ostep, &gaps_ok)
                    : kp == Place::RowsPadded ? gather_rows(placed[static_cast<std::size_t>(k)], &gaps_ok)
                                              : gather_operand(placed[static_cast<std::size_t>(k)], kp == Place::Step2 ? 2 : 1, &gaps_ok);
    if (!gaps_ok) problems += "\n    output '" + p.outputs[o].name + "': bytes between the strided elements were written";
    const ref::RefOutput* np = nullptr;
    for (const auto& r : expected)
      if (r.name == p.outputs[o].name) np = &r;
    const int tol = np ? (np->tol > 0 ? std::max(np->tol, rule.min_tol) : 0) : 0;
    std::string why;
    const HostArray& w = k < 0 ? want[o].array : cpu_copy[static_cast<std::size_t>(k)];
    if (got.dtype() != w.dtype() || got.shape() != w.shape()) {
      problems += "\n    output '" + p.outputs[o].name + "': GPU gives " + std::string(dtype_name(got.dtype())) + " " +
                  ref::shape_to_string(got.shape()) + ", CPU " + std::string(dtype_name(w.dtype())) + " " +
                  ref::shape_to_string(w.shape());
      continue;
    }
    ref::ElementTol per_element;
    per_element.scale = rule_values(rule.scale, cpu_in, got.size());
    per_element.floor = rule_values(rule.floor, cpu_in, got.size());
    const ref::ElementTol* pe = per_element.scale.empty() && per_element.floor.empty() ? nullptr : &per_element;
    if (!ref::values_match(got.dtype(), got.data(), w.data(), got.size(), tol == 0 ? 0 : 2 * tol, &why, pe))
      problems += "\n    output '" + p.outputs[o].name + "' vs CPU evaluator: " + why;
    if (with_numpy && np && !ref::values_match(got.dtype(), got.data(), np->array.data(), got.size(), tol, &why, pe))
      problems += "\n    output '" + p.outputs[o].name + "' vs NumPy: " + why;
  }
  return problems;
}

}  // namespace

TEST_CASE("GPU matches NumPy and the CPU evaluator on every reference case, in every layout", "[gpu][reference]") {
  static const std::vector<ref::RefCase> cases = ref::load_eval_cases(kData + "/eval_cases.txt");
  int stride = 4;
  if (const char* e = std::getenv("CUJIT_GPU_REF_STRIDE")) stride = std::max(1, std::atoi(e));
  std::size_t sample = 1;
  if (const char* e = std::getenv("CUJIT_GPU_REF_SAMPLE")) sample = static_cast<std::size_t>(std::max(1, std::atoi(e)));
  Report report;
  std::atomic<std::size_t> next{0};
  std::atomic<int> compiled_cases{0};
  const auto t0 = std::chrono::steady_clock::now();
  auto progress = [&] {
    int done = compiled_cases.load();
    if (done % 250 == 0) {
      double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      std::printf("reference on GPU: %d programs in %.1f s, %zu failures so far\n", done, s, report.count.load());
      std::fflush(stdout);
    }
  };

  auto work = [&] {
    for (;;) {
      std::size_t idx = next.fetch_add(1);
      if (idx >= cases.size()) return;
      const ref::RefCase& c = cases[idx];
      if (c.error || idx % sample != 0) continue;
      std::mt19937_64 rng(run_seed() ^ (0x9e3779b97f4a7c15ull * (idx + 1)));
      auto where = [&](const std::string& variant) {
        return "case " + c.id + " (eval_cases.txt:" + std::to_string(c.line) + ") [" + variant + "] " + c.program;
      };
      std::vector<Param> params;
      for (const auto& in : c.inputs) params.push_back(Param{in.name, in.array.dtype(), in.weak, false});
      std::vector<OutputDecl> decls;
      for (const auto& [name, dt] : c.outspecs) decls.push_back(OutputDecl{name, dt});
      std::shared_ptr<Program> prog;
      try {
        prog = std::make_shared<Program>(compile_program(c.program, params, decls));
      } catch (const Error& e) {
        report.fail(where("check") + "\n    " + first_line(e.what()));
        continue;
      }
      CompiledRule rule;
      try {
        rule = compile_rule(tolerance_rule(c), params);
      } catch (const Error& e) {
        report.fail(where("tolerance rule") + "\n    " + first_line(e.what()));
        continue;
      }
      GpuProgram g(prog);
      GpuOptions wide;
      wide.force_index64 = true;
      GpuProgram g64(prog, wide);
      auto run = [&](const GpuProgram& gp, const std::string& variant, const std::vector<Operand>& ops, bool step2_out,
                     bool with_numpy) {
        std::string r;
        try {
          r = run_variant(gp, ops, step2_out, c.outputs, with_numpy, rule);
        } catch (const std::exception& e) {
          r = std::string("exception: ") + first_line(e.what());
        }
        report.ran(variant);
        if (!r.empty()) report.fail(where(variant) + r);
      };

      // 1. The case's own inputs, against NumPy's values.
      std::vector<Operand> own;
      for (const auto& in : c.inputs) {
        Operand o;
        o.weak = in.weak;
        o.values = HostArray(in.array.dtype(), in.array.shape());
        std::memcpy(o.values.data(), in.array.data(), in.array.nbytes());
        own.push_back(std::move(o));
      }
      run(g, "numpy", own, false, true);
      compiled_cases.fetch_add(1);
      progress();

      // Random values in the case's shapes, or (N,) where every array input is
      // 1-d of one extent (the usual case), which the broadcast variants vary.
      bool vector_case = true;
      std::int64_t extent = -1;
      int arrays = 0;
      for (const auto& in : c.inputs) {
        if (in.weak) continue;
        ++arrays;
        if (in.array.shape().ndim != 1 || (extent >= 0 && in.array.shape()[0] != extent)) vector_case = false;
        extent = in.array.shape().ndim == 1 ? in.array.shape()[0] : -1;
      }
      vector_case = vector_case && arrays > 0;
      // The broadcast and scalar variants change the first array input that
      // the program does not update in place (an updated one keeps the shape).
      std::vector<bool> updated(c.inputs.size(), false);
      bool any_updated = false;
      for (const Var& v : prog->outputs)
        if (v.input >= 0) updated[static_cast<std::size_t>(v.input)] = any_updated = true;
      int first_free = -1;
      for (std::size_t k = 0; k < c.inputs.size() && first_free < 0; ++k)
        if (!c.inputs[k].weak && !updated[k]) first_free = static_cast<int>(k);
      auto random_ops = [&](Place place, int first_kind) {
        // first_kind: 0 all (N,); 1 first array (1,); 2 first (7,1); 3 first 0-d host value; 4 first 0-d device;
        // rows: 5 first (6,1), the others (1024,); 6 first (3,1,64), the others (1,5,1);
        // 7 first (6,1), the others (6,1024) padded and unaligned; 8 first (0,1), the others (1024,);
        // tiles: 9 first (37,29) transposed, the others (37,29); 10 first (3,37,29) transposed, the others (29,);
        // 11 first (33,65) transposed, the others (33,65) (no vectors); 12 first (68,136) transposed, the
        // others (68,136) (whole vectors, edge tiles); 13 first (68,136) transposed, the others (136,);
        // 14 first (2,70,66) transposed, the others (2,70,66) (vectors of 2, a batch); 15 first (1,1000) and
        // 16 first (1000,1) transposed, the others the same (one dimension after merging: no tiles)
        std::vector<Operand> ops;
        for (std::size_t k = 0; k < c.inputs.size(); ++k) {
          const bool first = static_cast<int>(k) == first_free;
          const auto& in = c.inputs[k];
          Operand o;
          o.weak = in.weak;
          if (in.weak) {
            o.values = HostArray(in.array.dtype(), in.array.shape());
            std::memcpy(o.values.data(), in.array.data(), in.array.nbytes());
            ops.push_back(std::move(o));
            continue;
          }
          Shape s = vector_case ? Shape{kN} : in.array.shape();
          o.place = place;
          if (first && first_kind == 1) s = Shape{1};
          if (first && first_kind == 2) s = Shape{7, 1};
          if (first && (first_kind == 3 || first_kind == 4)) s = Shape{};
          if (first && first_kind == 3) o.place = Place::HostValue;
          if (first_kind >= 5) {
            const bool f = first;
            switch (first_kind) {
              case 5: s = f ? Shape{6, 1} : Shape{1024}; break;
              case 6: s = f ? Shape{3, 1, 64} : Shape{1, 5, 1}; break;
              case 7: s = f ? Shape{6, 1} : Shape{6, 1024}; if (!f) o.place = Place::RowsPadded; break;
              case 8: s = f ? Shape{0, 1} : Shape{1024}; break;
              case 9: s = Shape{37, 29}; if (f) o.place = Place::Transposed; break;
              case 10: s = f ? Shape{3, 37, 29} : Shape{29}; if (f) o.place = Place::Transposed; break;
              case 11: s = Shape{33, 65}; if (f) o.place = Place::Transposed; break;
              case 12: s = Shape{68, 136}; if (f) o.place = Place::Transposed; break;
              case 13: s = f ? Shape{68, 136} : Shape{136}; if (f) o.place = Place::Transposed; break;
              case 14: s = Shape{2, 70, 66}; if (f) o.place = Place::Transposed; break;
              case 15: s = Shape{1, 1000}; if (f) o.place = Place::Transposed; break;
              default: s = Shape{1000, 1}; if (f) o.place = Place::Transposed; break;
            }
          }
          o.values = HostArray(in.array.dtype(), s);
          fill_random(o.values, rng);
          ops.push_back(std::move(o));
        }
        return ops;
      };

      // 2. Contiguous, vectorized: every case.
      auto contig = random_ops(Place::Contig, 0);
      run(g, "contiguous", contig, false, false);
      if (idx % static_cast<std::size_t>(stride) != 0 && !any_updated) continue;

      // 3. The other layouts on every stride-th case (and every in-place one).
      auto strided = random_ops(Place::Step2, 0);
      run(g, "strided", strided, true, false);
      run(g64, "index64 contiguous", contig, false, false);
      run(g64, "index64 strided", strided, true, false);
      if (vector_case && first_free >= 0) {
        run(g, "broadcast (1,)", random_ops(Place::Contig, 1), false, false);
        // An updated input must have the output's shape: the variants that
        // broadcast the other operands are for programs without one.
        if (arrays > 1 && !any_updated) {
          run(g, "broadcast (7,1)", random_ops(Place::Contig, 2), false, false);
          auto rows2 = random_ops(Place::Contig, 5);
          run(g, "rows (6,1)x(1024,)", rows2, false, false);
          run(g64, "index64 rows (6,1)x(1024,)", rows2, false, false);
          run(g, "rows 3-d (3,1,64)x(1,5,1)", random_ops(Place::Contig, 6), false, false);
          run(g, "rows empty (0,1)x(1024,)", random_ops(Place::Contig, 8), false, false);
        }
        if (arrays > 1) run(g, "rows padded, unaligned", random_ops(Place::Contig, 7), false, false);
        auto tiles = random_ops(Place::Contig, 9);
        run(g, "tiles (37,29) transposed", tiles, false, false);
        run(g64, "index64 tiles (37,29) transposed", tiles, false, false);
        if (!any_updated) run(g, "tiles 3-d (3,37,29) transposed", random_ops(Place::Contig, 10), false, false);
        run(g, "tiles (33,65) transposed", random_ops(Place::Contig, 11), false, false);
        auto tiles_big = random_ops(Place::Contig, 12);
        run(g, "tiles (68,136) transposed", tiles_big, false, false);
        run(g64, "index64 tiles (68,136) transposed", tiles_big, false, false);
        if (!any_updated) run(g, "tiles (68,136) transposed x (136,)", random_ops(Place::Contig, 13), false, false);
        run(g, "tiles 3-d (2,70,66) transposed", random_ops(Place::Contig, 14), false, false);
        run(g, "transposed (1,1000)", random_ops(Place::Contig, 15), false, false);
        run(g, "transposed (1000,1)", random_ops(Place::Contig, 16), false, false);
        run(g, "host 0-d value", random_ops(Place::Contig, 3), false, false);
        run(g, "device 0-d", random_ops(Place::Contig, 4), false, false);
      }
    }
  };
  unsigned threads = std::max(1u, std::min(16u, std::thread::hardware_concurrency()));
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) pool.emplace_back(work);
  for (auto& t : pool) t.join();

  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::string summary = "reference cases on the GPU (" + std::to_string(static_cast<int>(secs)) + " s, " +
                        std::to_string(threads) + " threads, layouts on every " + std::to_string(stride) + ". case): " + std::to_string(compiled_cases.load()) + " programs;";
  for (const auto& [v, n] : report.runs) summary += " " + v + ": " + std::to_string(n) + ";";
  summary += " failures: " + std::to_string(report.failures.size());
  std::printf("%s\n", summary.c_str());
  for (std::size_t k = 0; k < report.failures.size() && k < 40; ++k) std::printf("FAIL %s\n", report.failures[k].c_str());
  if (const char* path = std::getenv("CUJIT_GPU_REF_FAILURES")) {  // every failure, for a closer look
    if (FILE* f = std::fopen(path, "w")) {
      for (const auto& line : report.failures) std::fprintf(f, "FAIL %s\n", line.c_str());
      std::fclose(f);
    }
  }
  CHECK(report.failures.empty());
}

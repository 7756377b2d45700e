// Every NumPy reference case (tests/data/eval_cases.txt) on the GPU, against
// NumPy's values and against the CPU evaluator, in every layout the launcher
// has: contiguous (vectorized, with a tail), strided (step 2 inside bigger
// buffers, gaps checked untouched), broadcast (1,) and (7,1), scalar operands
// (a host 0-d value, a device 0-d array) and 64-bit indexing (forced).
//
//   CUJIT_GPU_REF_STRIDE=k  run the non-contiguous layouts on every k-th case
//                           (default 4; 1 = all); contiguous runs on all
//   CUJIT_GPU_REF_SAMPLE=k  only every k-th case at all (for slow tools such as
//                           compute-sanitizer; default 1)
//   CUJIT_GPU_REF_FAILURES=path  write every failure there
//   CUJIT_TEST_SEED=s       replay a run's random inputs
//
// Comparisons (values_match): against NumPy with the case's tolerance (the
// contract's ulp bounds, 0 = bit-exact); against the CPU evaluator bit-exact
// where the tolerance is 0, else within twice it (each side is within the
// tolerance of the true value). Cases run on a pool of threads, all sharing
// the kernel cache, so this also exercises concurrent compiles and launches.
#include <atomic>
#include <chrono>
#include <cstdio>
#include <map>
#include <memory>
#include <mutex>
#include <thread>

#include "catch.hpp"
#include "check.hpp"
#include "cujit/error.hpp"
#include "eval.hpp"
#include "gpu_util.hpp"
#include "launch.hpp"
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

enum class Place { Contig, Step2, HostValue };

// One operand of a run: its values (compact, host) and where the GPU reads it.
struct Operand {
  bool weak = false;
  HostArray values;
  Place place = Place::Contig;
};

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

// Runs `g` on the operands, and the CPU evaluator on the same values; compares
// the two (with the case's tolerances), and with NumPy's values when
// `with_numpy`. Returns "" or what went wrong.
std::string run_variant(const GpuProgram& g, const std::vector<Operand>& ops, bool step2_out,
                        const std::vector<ref::RefOutput>& expected, bool with_numpy) {
  const Program& p = g.program();
  std::vector<Input> cpu_in;
  for (std::size_t k = 0; k < ops.size(); ++k)
    cpu_in.push_back(Input{p.inputs[k].name, ops[k].values.view(), ops[k].weak, p.inputs[k].raw});
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
      placed[k] = spread_to_device(ops[k].values, dev, ops[k].place == Place::Step2 ? 2 : 1);
      in_views.push_back(placed[k].view);
    }
  }
  Shape shape = want.empty() ? broadcast_shape(p, in_views.data()) : want[0].array.shape();
  const int ostep = step2_out ? 2 : 1;
  std::vector<Spread> outs;
  std::vector<ArrayView> out_views;
  for (const Var& v : p.outputs) {
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
    HostArray got = gather(outs[o], ostep, &gaps_ok);
    if (!gaps_ok) problems += "\n    output '" + p.outputs[o].name + "': bytes between the strided elements were written";
    const ref::RefOutput* np = nullptr;
    for (const auto& r : expected)
      if (r.name == p.outputs[o].name) np = &r;
    const int tol = np ? np->tol : 0;
    std::string why;
    const HostArray& w = want[o].array;
    if (got.dtype() != w.dtype() || got.shape() != w.shape()) {
      problems += "\n    output '" + p.outputs[o].name + "': GPU gives " + std::string(dtype_name(got.dtype())) + " " +
                  ref::shape_to_string(got.shape()) + ", CPU " + std::string(dtype_name(w.dtype())) + " " +
                  ref::shape_to_string(w.shape());
      continue;
    }
    if (!ref::values_match(got.dtype(), got.data(), w.data(), got.size(), tol == 0 ? 0 : 2 * tol, &why))
      problems += "\n    output '" + p.outputs[o].name + "' vs CPU evaluator: " + why;
    if (with_numpy && np && !ref::values_match(got.dtype(), got.data(), np->array.data(), got.size(), np->tol, &why))
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
      GpuProgram g(prog);
      GpuOptions wide;
      wide.force_index64 = true;
      GpuProgram g64(prog, wide);
      auto run = [&](const GpuProgram& gp, const std::string& variant, const std::vector<Operand>& ops, bool step2_out,
                     bool with_numpy) {
        std::string r;
        try {
          r = run_variant(gp, ops, step2_out, c.outputs, with_numpy);
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
      auto random_ops = [&](Place place, int first_kind) {
        // first_kind: 0 all (N,); 1 first array (1,); 2 first (7,1); 3 first 0-d host value; 4 first 0-d device
        std::vector<Operand> ops;
        bool first = true;
        for (std::size_t k = 0; k < c.inputs.size(); ++k) {
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
          first = false;
          o.values = HostArray(in.array.dtype(), s);
          fill_random(o.values, rng);
          ops.push_back(std::move(o));
        }
        return ops;
      };

      // 2. Contiguous, vectorized: every case.
      auto contig = random_ops(Place::Contig, 0);
      run(g, "contiguous", contig, false, false);
      if (idx % static_cast<std::size_t>(stride) != 0) continue;

      // 3. The other layouts on every stride-th case.
      auto strided = random_ops(Place::Step2, 0);
      run(g, "strided", strided, true, false);
      run(g64, "index64 contiguous", contig, false, false);
      run(g64, "index64 strided", strided, true, false);
      if (vector_case) {
        run(g, "broadcast (1,)", random_ops(Place::Contig, 1), false, false);
        if (arrays > 1) run(g, "broadcast (7,1)", random_ops(Place::Contig, 2), false, false);
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

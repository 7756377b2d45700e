// cujit's side of bench/reductions.py: times the reduction kernels
// (src/gpu/reduce_launch.hpp) on device buffers, one case per line on stdin:
//
//   ID|OP|DTYPE|OUTER|LEN|INNER[|CHUNKS]
//
// OP: sum, max, argmax, dot (sum of x*y) over [OUTER, LEN, INNER] reduced
// over LEN; norm: (x - mean) / std over rows of LEN (OUTER rows, INNER 1).
// Inputs hold varied values, as the peers' randn (bench/reductions.py): until
// 2026-11-28 every byte was 0x3c, which left the row normalisation dividing
// 0 by 0 for every element, the division's slow path (NumPy's NaN). Prints `ID MEDIAN_MS PLAN`: the median of 25
// calls after a warm-up (which compiles), each between two events after a
// ~100 us spin kernel, so that the events time the kernel alone.
//
// CUJIT_BENCH_PATH=call times the same cases as programs through the call
// path a user's call takes (api/call -> api/reduce_call: the plan, fusion,
// the kernels), outputs given: `s = sum(x, axis=1)` over x of shape
// (OUTER, LEN, INNER), `s = sum(x*y, axis=1)`, max, argmax, and the row
// normalisation `z = (x - mean(x, axis=1, keepdims=true)) / std(...)`.
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <iostream>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

#include "api/call.hpp"
#include "cujit/evaluate.hpp"
#include "api/programs.hpp"
#include "gpu/compile.hpp"
#include "core/driver.hpp"
#include "gpu/reduce_launch.hpp"

using namespace cujit;

namespace {

DType parse_dtype(const std::string& s) {
  if (s == "float64") return DType::Float64;
  if (s == "float16") return DType::Float16;
  if (s == "int32") return DType::Int32;
  return DType::Float32;
}

CUfunction spin_kernel() {
  static CUfunction f = [] {
    const char* src =
        "extern \"C\" __global__ void spin(long long c) { long long t = clock64(); while (clock64() - t < c) {} }\n";
    CompileOptions co;
    co.arch = cap_arch(device_info(0).arch());
    CompiledKernel k = compile_cuda(src, "spin", co);
    return get_function(0, "bench-spin", select_image(k, device_info(0).arch()), "spin");
  }();
  return f;
}

template <class F> double timed(F&& f) {
  f();
  synchronize(0);
  Event a(0), b(0);
  CUfunction spin = spin_kernel();
  long long cycles = 200000;
  void* sp[] = {&cycles};
  std::vector<double> ms;
  for (int r = 0; r < 25; ++r) {
    launch(0, spin, 1, 1, sp);
    a.record();
    f();
    b.record();
    b.synchronize();
    ms.push_back(b.elapsed_ms_since(a));
  }
  std::sort(ms.begin(), ms.end());
  return ms[ms.size() / 2];
}

ReduceSpec spec_of(const std::string& op, DType t) {
  ReduceSpec s;
  s.inputs = {{"x", t}};
  const bool half = t == DType::Float16;
  s.value = t == DType::Int32 && (op == "sum" || op == "dot") ? DType::Int64 : t;
  s.out = s.value;
  if (op == "max") s.op = ReduceOp::Max;
  if (op == "argmax") {
    s.op = ReduceOp::ArgMax;
    s.out = DType::Int64;
  }
  if (op == "dot") {
    s.inputs.push_back({"y", t});
    s.map = "x * y";
  }
  (void)half;
  return s;
}

// `count` elements of `t` at `dst`: sin(i * 0.37) * 4 for floats, small
// integers otherwise; never all equal.
void fill(CUdeviceptr dst, DType t, long long count) {
  EvaluateOptions opt;
  opt.device = Device::cuda(0);
  opt.shape = Shape{count};
  opt.output_dtypes = {{"out", t}};
  const Array a = evaluate(is_integer(t) ? "out = (i * 7919 + 3) % 251 - 125" : "out = sin(i * 0.37) * 4", {}, opt)
                      .at(0)
                      .array;
  memcpy_dtod(0, dst, reinterpret_cast<CUdeviceptr>(a.view().data), static_cast<std::size_t>(count) * dtype_size(t));
  synchronize(0);
}

// The case as a program of the language, run through the call path.
struct ProgramCase {
  std::shared_ptr<const GpuProgram> program;
  Shape in_shape, out_shape;
  DType out = DType::Float32;
};
ProgramCase program_of(const std::string& op, DType t, const ReduceShape& sh) {
  ProgramCase c;
  std::string text;
  if (op == "norm") {
    text = "z = (x - mean(x, axis=1, keepdims=true)) / std(x, axis=1, keepdims=true)";
    c.in_shape = Shape{sh.outer, sh.len};
    c.out_shape = c.in_shape;
  } else {
    text = "s = " + (op == "dot" ? std::string("sum(x*y") : op + "(x") + ", axis=1)";
    c.in_shape = Shape{sh.outer, sh.len, sh.inner};
    c.out_shape = Shape{sh.outer, sh.inner};
  }
  ProgramRequest req;
  req.source = text;
  req.params.push_back(Param{"x", t, false, false});
  if (op == "dot") req.params.push_back(Param{"y", t, false, false});
  c.program = checked_program(req);
  c.out = c.program->program().outputs[0].dtype;
  return c;
}

void run_program(const ProgramCase& pc, DType t, const CUdeviceptr* ptrs, CUdeviceptr out) {
  Call c(*pc.program);
  c.where = Device::cuda(0);
  for (std::size_t k = 0; k < pc.program->program().inputs.size(); ++k)
    c.inputs[k] = ArrayView::cuda(reinterpret_cast<void*>(ptrs[k]), t, pc.in_shape, 0);
  c.outputs[0] = ArrayView::cuda(reinterpret_cast<void*>(out), pc.out, pc.out_shape, 0);
  c.given[0] = true;
  run_call(c);
}

}  // namespace

int main() {
  const char* path = std::getenv("CUJIT_BENCH_PATH");
  const bool call_path = path && std::string(path) == "call";
  ReduceKernels kernels;
  ReduceWorkspace ws(0);
  DeviceBuffer in, out;
  std::pair<DType, std::size_t> filled{};  // what `in` holds
  std::string line;
  while (std::getline(std::cin, line)) {
    if (line.empty()) continue;
    std::vector<std::string> f;
    std::stringstream ss(line);
    std::string part;
    while (std::getline(ss, part, '|')) f.push_back(part);
    const std::string id = f[0], op = f[1];
    const DType t = parse_dtype(f[2]);
    const ReduceShape sh{std::stoll(f[3]), std::stoll(f[4]), std::stoll(f[5])};
    const std::size_t n = static_cast<std::size_t>(sh.outer * sh.len * sh.inner);
    const std::size_t inputs = op == "dot" ? 2 : 1;
    const std::size_t in_bytes = n * dtype_size(t) * inputs;
    const std::size_t out_bytes = op == "norm" ? n * dtype_size(t) : static_cast<std::size_t>(sh.outer * sh.inner) * 8;
    if (in.size() < in_bytes) {
      in = DeviceBuffer();
      in = DeviceBuffer(0, in_bytes);
      filled = {};
    }
    if (filled != std::make_pair(t, in_bytes)) {
      fill(in.ptr(), t, static_cast<long long>(in_bytes / dtype_size(t)));
      filled = {t, in_bytes};
    }
    if (out.size() < out_bytes) {
      out = DeviceBuffer();
      out = DeviceBuffer(0, out_bytes);
    }
    CUdeviceptr ptrs[2] = {in.ptr(), in.ptr() + n * dtype_size(t)};
    double ms = 0;
    std::string plan;
    if (call_path) {
      const ProgramCase pc = program_of(op, t, sh);
      ms = timed([&] { run_program(pc, t, ptrs, out.ptr()); });
      plan = "call";
    } else if (op == "norm") {
      RowNormSpec rn;
      rn.inputs = {{"x", t}};
      rn.value = t;
      rn.out = t;
      ms = timed([&] { kernels.normalize_rows(0, rn, sh.outer, sh.len, ptrs, out.ptr()); });
      plan = "rownorm";
    } else if (f.size() > 6) {
      // A seventh field: the planner's plan with that many chunks a row (the
      // rows variant; the launch may still make whole rounds of them,
      // reduce_launch.cpp) or splits of the reduced axis (the columns
      // variant), to measure those counts.
      const ReduceSpec spec = spec_of(op, t);
      ReducePlan forced = reduce_plan(spec, sh);
      const long long want = std::stoll(f[6]);
      if (forced.variant == ReducePlan::Variant::Cols) {
        const long long tiles = ((sh.inner + forced.vec - 1) / forced.vec + forced.tx - 1) / forced.tx;
        forced.chunk = std::max<long long>(1, (sh.len + want - 1) / want);
        forced.splits = static_cast<int>((sh.len + forced.chunk - 1) / forced.chunk);
        forced.items = sh.outer * tiles * forced.splits;
        forced.partial_count = forced.splits > 1 ? static_cast<std::size_t>(forced.items * forced.tx * forced.vec) : 0;
        forced.counters = forced.splits > 1 ? static_cast<std::size_t>(sh.outer * tiles) : 0;
      } else {
        forced.chunk = std::max<long long>(forced.vec, (sh.len + want - 1) / want / forced.vec * forced.vec);
        forced.splits = static_cast<int>((sh.len + forced.chunk - 1) / forced.chunk);
        forced.items = sh.outer * forced.splits;
        forced.partial_count = static_cast<std::size_t>(forced.items);
        forced.counters = static_cast<std::size_t>(sh.outer);
      }
      plan = forced.key();
      ms = timed([&] { kernels.launch(0, spec, sh, ptrs, out.ptr(), ws, nullptr, &forced); });
    } else {
      const ReduceSpec spec = spec_of(op, t);
      plan = reduce_plan(spec, sh).key();
      ms = timed([&] { kernels.launch(0, spec, sh, ptrs, out.ptr(), ws); });
    }
    std::printf("%s %.6f %s\n", id.c_str(), ms, plan.c_str());
    std::fflush(stdout);
  }
  return 0;
}

// cujit's side of bench/layouts.py: times ElementwiseKernel calls on device
// arrays for the cases the script describes, one case per line on stdin:
//
//   ID|IN_PARAMS|OUT_PARAMS|OPERATION|INPUTS|OUTPUTS|INPLACE
//
// INPUTS and OUTPUTS are ';'-separated `DTYPE:SHAPE:VIEW[:FILL]` (SHAPE `AxBxC`;
// VIEW `c` as allocated, `T` the transpose of a 2-D buffer, `S2` every second
// element of a 1-D buffer; FILL `pos`: floats in [0.5, 4.5], the range the
// script gives the peers where a program's functions branch on their argument,
// as log and sqrt of Black-Scholes do); an input `=VALUE` is a scalar (a C++ double). INPLACE is the input that output 0 updates in
// place (the same array passed as both, CuPy-style), or -1. Inputs are filled
// on the GPU by a cujit program (no host copies of 2^30-element arrays), never
// with zeros. Prints `ID MEDIAN_MS` per case: the median of 25 calls after a
// warm-up call (which compiles), each between two device events. A spinning
// kernel of about 100 us is queued before each timed call, so the host's
// enqueue happens while the GPU is busy and the events time the kernel alone
// (bench/layouts.py does the same for the peers with torch.cuda._sleep).
// BENCH_LAYOUTS_MAX_VECTOR=k runs each case through GpuProgram with
// GpuOptions::max_vector = k instead (to measure vector widths; typed
// parameters only, no scalars), and prints its layout and launch shape.
//   bench_layouts < cases.txt
#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "cujit/elementwise.hpp"
#include "cujit/evaluate.hpp"
#include "core/driver.hpp"
#include "gpu/launch.hpp"
#include "lang/check.hpp"

using namespace cujit;

namespace {

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::string cur;
  std::istringstream in(s);
  while (std::getline(in, cur, sep)) out.push_back(cur);
  if (!s.empty() && s.back() == sep) out.emplace_back();
  return out;
}

Shape parse_shape(const std::string& s) {
  Shape sh;
  for (const std::string& d : split(s, 'x')) sh[sh.ndim++] = std::stoll(d);
  return sh;
}

// A program that fills an array of `dtype` with varied values (never zeros).
std::string fill_program(DType t, int seed, bool positive) {
  std::string k = fmt::format("{}", 0.37 + 0.01 * seed);
  if (positive && is_float(t)) return fmt::format("out = abs(sin(i * {}) * 4) + 0.5", k);
  if (is_complex(t)) return fmt::format("out = sin(i * {}) * 4 + cos(i * 0.11) * 3j", k);
  if (t == DType::Bool) return fmt::format("out = sin(i * {}) > 0", k);
  if (is_integer(t)) return fmt::format("out = (i * 7919 + {}) % 251 - 125", seed);
  return fmt::format("out = sin(i * {}) * 4", k);
}

struct Operand {
  Array buffer;  // keeps the memory
  ArrayView view;
};

Operand make_operand(const std::string& spec, int seed, bool fill) {
  std::vector<std::string> f = split(spec, ':');
  if (f.size() != 3 && !(f.size() == 4 && f[3] == "pos")) throw std::runtime_error("bad operand spec " + spec);
  DType t = *dtype_from_name(f[0]);
  Shape shape = parse_shape(f[1]);
  Operand o;
  if (fill) {
    EvaluateOptions opt;
    opt.device = Device::cuda(0);
    opt.shape = shape;
    opt.output_dtypes = {{"out", t}};
    o.buffer = evaluate(fill_program(t, seed, f.size() == 4), {}, opt).at(0).array;
  } else {
    o.buffer = Array::empty(t, shape, Device::cuda(0));
  }
  o.view = o.buffer.view();
  if (f[2] == "T") {
    std::swap(o.view.shape[0], o.view.shape[1]);
    std::swap(o.view.strides[0], o.view.strides[1]);
  } else if (f[2] == "S2") {
    o.view.shape[0] = (shape[0] + 1) / 2;
    o.view.strides[0] *= 2;
  }
  return o;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : (v[v.size() / 2 - 1] + v[v.size() / 2]) / 2;
}

}  // namespace

int main() {
  if (!gpu_available()) {
    std::printf("bench_layouts: no CUDA device (%s)\n", gpu_unavailable_reason().c_str());
    return 77;
  }
  std::string line;
  Event e0(0), e1(0);
  ElementwiseOptions spin_options;
  spin_options.raw_cuda = true;
  ElementwiseKernel spin("", "int64 z", "long long t0 = clock64(); while (clock64() - t0 < 200000) {} z = t0;",
                         "spin", spin_options);
  Array spin_out = Array::empty(DType::Int64, Shape{1}, Device::cuda(0));
  while (std::getline(std::cin, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> f = split(line, '|');
    if (f.size() != 7) {
      std::fprintf(stderr, "bench_layouts: bad line: %s\n", line.c_str());
      return 2;
    }
    try {
      std::vector<Operand> ins, outs;
      std::vector<std::pair<std::size_t, double>> scalars;  // (argument position, value)
      int seed = 1;
      for (const std::string& s : split(f[4], ';')) {
        if (!s.empty() && s[0] == '=') scalars.emplace_back(ins.size() + scalars.size(), std::stod(s.substr(1)));
        else ins.push_back(make_operand(s, seed++, true));
      }
      int inplace = std::stoi(f[6]);
      for (const std::string& s : split(f[5], ';')) {
        if (inplace >= 0 && outs.empty()) outs.push_back(ins[static_cast<std::size_t>(inplace)]);
        else outs.push_back(make_operand(s, 0, false));
      }
      if (const char* mv = std::getenv("BENCH_LAYOUTS_MAX_VECTOR")) {
        // "float16 x, float16 y" -> typed parameters; outputs likewise.
        auto params = [](const std::string& text) {
          std::vector<std::pair<std::string, DType>> out;
          for (std::string item : split(text, ',')) {
            std::istringstream in(item);
            std::string t, name;
            in >> t >> name;
            out.emplace_back(name, *dtype_from_name(t));
          }
          return out;
        };
        std::vector<Param> ps;
        for (auto& [name, t] : params(f[1])) ps.push_back(Param{name, t, false, false});
        std::vector<OutputDecl> os;
        for (auto& [name, t] : params(f[2])) os.push_back(OutputDecl{name, t});
        GpuOptions go;
        go.max_vector = std::atoi(mv);
        go.kernel_name = "bench_" + f[0].substr(0, f[0].find('@'));
        GpuProgram g(std::make_shared<Program>(compile_program(f[3], ps, os)), go);
        std::vector<ArrayView> iv, ov;
        for (const Operand& o : ins) iv.push_back(o.view);
        for (const Operand& o : outs) ov.push_back(o.view);
        LaunchStats st;
        g.launch(0, iv, ov, nullptr, &st);
        synchronize(0);
        std::vector<double> t;
        for (int rep = 0; rep < 25; ++rep) {
          spin(spin_out);
          e0.record();
          g.launch(0, iv, ov);
          e1.record();
          e1.synchronize();
          t.push_back(e1.elapsed_ms_since(e0));
        }
        fmt::print("{} {:.6f} {} grid {}x{} block {}x{}\n", f[0], median(t), st.layout, st.grid, st.grid_y, st.block, st.block_y);
        std::fflush(stdout);
        continue;
      }
      ElementwiseKernel k(f[1], f[2], f[3], "bench_" + f[0].substr(0, f[0].find('@')));
      std::vector<Arg> args;
      for (const Operand& o : ins) args.emplace_back(o.view);
      for (const auto& [pos, value] : scalars) args.insert(args.begin() + static_cast<long>(pos), Arg(value));
      for (const Operand& o : outs) args.emplace_back(o.view);
      k.call(args.data(), args.size());  // compiles, loads
      synchronize(0);
      std::vector<double> t;
      for (int rep = 0; rep < 25; ++rep) {
        spin(spin_out);
        e0.record();
        k.call(args.data(), args.size());
        e1.record();
        e1.synchronize();
        t.push_back(e1.elapsed_ms_since(e0));
      }
      fmt::print("{} {:.6f}\n", f[0], median(t));
    } catch (const std::exception& e) {
      fmt::print("{} error {}\n", f[0], split(e.what(), '\n').at(0));
    }
    std::fflush(stdout);
  }
  return 0;
}

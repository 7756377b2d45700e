// jitrun: evaluate a cujit program from the command line.
//   jitrun -i x=rand(1000000) 'out = sin(x)*5'
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <complex>
#include <cstdio>
#include <map>
#include <set>

#include "check.hpp"
#include "cujit/error.hpp"
#include "eval.hpp"
#include "fail.hpp"
#include "format.hpp"
#include "lex.hpp"
#include "npy.hpp"
#include "scalar.hpp"
#include "sources.hpp"

using namespace cujit;

namespace {

struct Options {
  std::string program;
  std::vector<std::string> inputs, outputs, types;
  bool print = false, verbose = false;
  std::string device = "auto";
  std::string shape;
  std::uint64_t seed = 0;
};

std::pair<std::string, std::string> split_eq(const std::string& s, const char* flag) {
  std::size_t eq = s.find('=');
  if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
    fail(ErrorCode::Usage, "{} expects NAME=VALUE, got '{}'", flag, s);
  return {s.substr(0, eq), s.substr(eq + 1)};
}

// Inputs the program indexes (`x[j]`) are raw parameters.
std::set<std::string> indexed_names(const std::string& program) {
  std::set<std::string> out;
  auto toks = tokenize(program);
  for (std::size_t k = 0; k + 1 < toks.size(); ++k)
    if (toks[k].kind == Tok::Ident && toks[k + 1].kind == Tok::LBracket) out.insert(std::string(toks[k].text));
  return out;
}

std::string shape_text(const Shape& s) {
  std::string t = "(";
  for (int d = 0; d < s.ndim; ++d) t += std::to_string(s[d]) + (s.ndim == 1 ? "," : d + 1 < s.ndim ? ", " : "");
  return t + ")";
}

// One line per output: dtype, shape and a few statistics, so a run on 10^8
// elements does not flood the terminal.
std::string summary(const Output& o) {
  const HostArray& a = o.array;
  std::string s = fmt::format("{}: {} {}", o.name, dtype_name(a.dtype()), shape_text(a.shape()));
  std::int64_t n = a.size();
  if (n == 0) return s + "  (empty)";
  auto at = [&](std::int64_t k) -> std::complex<double> {
    const unsigned char* p = static_cast<const unsigned char*>(a.data()) + static_cast<std::size_t>(k) * dtype_size(a.dtype());
    using namespace scalar;
    switch (a.dtype()) {
      case DType::Bool: return *reinterpret_cast<const bool*>(p);
      case DType::Int8: return *reinterpret_cast<const std::int8_t*>(p);
      case DType::Int16: return *reinterpret_cast<const std::int16_t*>(p);
      case DType::Int32: return *reinterpret_cast<const std::int32_t*>(p);
      case DType::Int64: return static_cast<double>(*reinterpret_cast<const std::int64_t*>(p));
      case DType::UInt8: return *reinterpret_cast<const std::uint8_t*>(p);
      case DType::UInt16: return *reinterpret_cast<const std::uint16_t*>(p);
      case DType::UInt32: return *reinterpret_cast<const std::uint32_t*>(p);
      case DType::UInt64: return static_cast<double>(*reinterpret_cast<const std::uint64_t*>(p));
      case DType::Float16: return cast<double>(*reinterpret_cast<const Half*>(p));
      case DType::BFloat16: return cast<double>(*reinterpret_cast<const BF16*>(p));
      case DType::Float32: return *reinterpret_cast<const float*>(p);
      case DType::Float64: return *reinterpret_cast<const double*>(p);
      case DType::Complex64: return std::complex<double>(*reinterpret_cast<const std::complex<float>*>(p));
      default: return *reinterpret_cast<const std::complex<double>*>(p);
    }
  };
  if (a.dtype() == DType::Bool) {
    std::int64_t t = 0;
    for (std::int64_t k = 0; k < n; ++k) t += at(k).real() != 0;
    return s + fmt::format("  true: {} of {}", t, n);
  }
  if (is_complex(a.dtype())) {
    std::complex<double> sum = 0;
    for (std::int64_t k = 0; k < n; ++k) sum += at(k);
    return s + fmt::format("  mean: {:.6g}{:+.6g}j  first: {:.6g}{:+.6g}j", sum.real() / static_cast<double>(n),
                           sum.imag() / static_cast<double>(n), at(0).real(), at(0).imag());
  }
  double lo = INFINITY, hi = -INFINITY, sum = 0;
  std::int64_t nans = 0;
  for (std::int64_t k = 0; k < n; ++k) {
    double v = at(k).real();
    if (v != v) { ++nans; continue; }
    lo = std::min(lo, v);
    hi = std::max(hi, v);
    sum += v;
  }
  s += fmt::format("  min: {:.6g}  max: {:.6g}  mean: {:.6g}", lo, hi, n > nans ? sum / static_cast<double>(n - nans) : NAN);
  if (nans) s += fmt::format("  nan: {}", nans);
  return s;
}

double ms_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
}

int run(const Options& opt) {
  using clock = std::chrono::steady_clock;
  if (opt.device != "auto" && opt.device != "cpu")
    fail(ErrorCode::Usage, "--device must be auto or cpu in this build (GPU devices come with the runtime), got '{}'", opt.device);

  std::set<std::string> raw = indexed_names(opt.program);
  std::vector<jitrun::Source> sources;
  std::vector<std::string> names;
  for (const auto& spec : opt.inputs) {
    auto [name, text] = split_eq(spec, "-i/--input");
    for (const auto& n : names)
      if (n == name) fail(ErrorCode::Usage, "input '{}' is given twice", name);
    names.push_back(name);
    sources.push_back(jitrun::make_source(name, text, opt.seed + sources.size()));
  }
  std::vector<Input> inputs;
  for (std::size_t k = 0; k < sources.size(); ++k)
    inputs.push_back(Input{names[k], sources[k].array.view(), sources[k].weak, raw.count(names[k]) > 0});

  std::vector<OutputSpec> specs;
  for (const auto& t : opt.types) {
    auto [name, dt] = split_eq(t, "-t/--type");
    auto d = dtype_from_name(dt);
    if (!d) fail(ErrorCode::Usage, "-t {}: unknown dtype '{}'", name, dt);
    specs.push_back(OutputSpec{name, *d});
  }
  std::map<std::string, std::string> paths;
  for (const auto& o : opt.outputs) {
    auto [name, path] = split_eq(o, "-o/--output");
    paths[name] = path;
  }

  auto t0 = clock::now();
  std::vector<Param> params;
  for (const Input& in : inputs) params.push_back(Param{in.name, in.view.dtype, in.weak, in.raw});
  std::vector<OutputDecl> decl;
  for (const auto& s : specs) decl.push_back(OutputDecl{s.name, s.dtype});
  Program program = compile_program(opt.program, params, decl);
  double t_check = ms_since(t0);
  for (const auto& [name, path] : paths) {
    bool found = false;
    std::string all;
    for (const Var& v : program.outputs) found = found || v.name == name, all += (all.empty() ? "" : ", ") + v.name;
    if (!found) fail(ErrorCode::Usage, "-o {}: the program has no output '{}' (its outputs: {})", name, name, all);
  }

  auto t1 = clock::now();
  // A program over raw arrays alone has no broadcast shape: --shape gives it,
  // else it takes the first raw input's, so `out = x[n - 1 - i]` reverses x.
  const Shape* shape = nullptr;
  Shape given;
  if (!opt.shape.empty()) {
    given = jitrun::parse_shape(opt.shape);
    shape = &given;
  } else if (!program.has_array_operand) {
    for (const Input& in : inputs)
      if (in.raw) {
        given = in.view.shape;
        shape = &given;
        break;
      }
  }
  std::vector<Output> outs = evaluate_program(program, inputs, shape);
  double t_eval = ms_since(t1);

  for (const Output& o : outs) {
    auto it = paths.find(o.name);
    if (it != paths.end()) write_npy(it->second, o.array.view());
    if (opt.print) std::printf("%s = %s\n", o.name.c_str(), format_array(o.array.view()).c_str());
    else if (it == paths.end()) std::printf("%s\n", summary(o).c_str());
  }
  if (opt.verbose)
    std::fprintf(stderr, "jitrun: device cpu; parse+check %.3f ms; evaluate %.3f ms\n", t_check, t_eval);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"jitrun: evaluate a cujit elementwise program.\n"
               "Example: jitrun -i x=rand(1000000) 'out = sin(x)*5'"};
  Options opt;
  app.add_option("PROGRAM", opt.program, "the program, e.g. 'out = sin(x)*5'")->required();
  app.add_option("-i,--input", opt.inputs,
                 "NAME=SOURCE: a .npy file; a scalar (3.5, 2.0f, 7); or rand(N), randn(N), arange(N), "
                 "linspace(A,B,N), full(N,V), zeros(N), ones(N) with an optional :DTYPE (float32 by default); "
                 "N may be 1e6 or 3x4");
  app.add_option("-o,--output", opt.outputs, "NAME=PATH: write that output to a .npy file");
  app.add_option("-t,--type", opt.types, "NAME=DTYPE: declare an output's dtype");
  app.add_flag("--print", opt.print, "print outputs the way NumPy prints arrays");
  app.add_option("--device", opt.device, "auto|cpu");
  app.add_option("--shape", opt.shape, "shape of the outputs (e.g. 1000 or 3x4) when no array input gives it");
  app.add_option("--seed", opt.seed, "seed of the random generators (default 0: runs are reproducible)");
  app.add_flag("-v,--verbose", opt.verbose, "print phase timings");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "jitrun: %s\nRun 'jitrun --help' for the options.\n", e.what());
    return static_cast<int>(ErrorCode::Usage);
  }
  try {
    return run(opt);
  } catch (const Error& e) {
    if (e.code() == ErrorCode::Program) std::fprintf(stderr, "%s\n", e.what());
    else std::fprintf(stderr, "jitrun: %s\n", e.what());
    return e.exit_code();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "jitrun: internal error: %s\n", e.what());
    return static_cast<int>(ErrorCode::Internal);
  }
}

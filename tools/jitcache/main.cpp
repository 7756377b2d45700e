// jitcache: precompile kernels into the disk cache (no GPU needed), and
// inspect, verify, prune or clear the cache.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <chrono>
#include <cstdio>
#include <ctime>

#include "check.hpp"
#include "codegen.hpp"
#include "compile.hpp"
#include "cujit/error.hpp"
#include "fail.hpp"
#include "kernel_cache.hpp"
#include "launch.hpp"
#include "names.hpp"

using namespace cujit;

namespace {

// "100M", "2G", "4096" -> bytes.
std::uint64_t parse_size(const std::string& s) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  std::string unit = s.substr(used);
  double mult = unit.empty() || unit == "B" ? 1 : unit == "K" || unit == "KB" ? 1e3 : unit == "M" || unit == "MB" ? 1e6
              : unit == "G" || unit == "GB" ? 1e9 : unit == "KiB" ? 1024.0 : unit == "MiB" ? 1048576.0 : unit == "GiB" ? 1073741824.0 : -1;
  if (used == 0 || mult < 0 || v < 0)
    fail(ErrorCode::Usage, "--max-size {}: expected a size such as 500M, 2G or 4096 (bytes)", s);
  return static_cast<std::uint64_t>(v * mult);
}

// "30d", "12h", "90m", "45s" -> seconds.
std::chrono::seconds parse_age(const std::string& s) {
  std::size_t used = 0;
  double v = 0;
  try {
    v = std::stod(s, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  std::string unit = s.substr(used);
  double mult = unit == "s" ? 1 : unit == "m" ? 60 : unit == "h" ? 3600 : unit == "d" ? 86400 : unit == "w" ? 604800 : -1;
  if (used == 0 || mult < 0 || v < 0) fail(ErrorCode::Usage, "--older-than {}: expected an age such as 30d, 12h, 90m or 45s", s);
  return std::chrono::seconds(static_cast<long long>(v * mult));
}

std::string human(std::uint64_t bytes) {
  if (bytes >= 1000000) return fmt::format("{:.1f} MB", static_cast<double>(bytes) / 1e6);
  if (bytes >= 1000) return fmt::format("{:.1f} kB", static_cast<double>(bytes) / 1e3);
  return fmt::format("{} B", bytes);
}

std::string age(std::int64_t mtime) {
  std::int64_t d = static_cast<std::int64_t>(std::time(nullptr)) - mtime;
  if (d < 120) return fmt::format("{} s", d);
  if (d < 7200) return fmt::format("{} min", d / 60);
  if (d < 172800) return fmt::format("{} h", d / 3600);
  return fmt::format("{} d", d / 86400);
}

struct CompileArgs {
  std::string program, name = "cujit_kernel", arch, layout = "contiguous";
  std::vector<std::string> inputs, types;
  bool fast_math = false;
  int ndim = 1;
};

// -i x=float32, -i a=float64:weak, -i r=int32:raw
Param parse_param(const std::string& spec) {
  std::size_t eq = spec.find('=');
  if (eq == std::string::npos || eq == 0) fail(ErrorCode::Usage, "-i expects NAME=DTYPE[:weak|:raw], got '{}'", quoted_text(spec));
  Param p;
  p.name = spec.substr(0, eq);
  check_name(p.name, "-i");
  std::string rest = spec.substr(eq + 1), flag;
  std::size_t colon = rest.find(':');
  if (colon != std::string::npos) {
    flag = rest.substr(colon + 1);
    rest = rest.substr(0, colon);
  }
  auto dt = dtype_from_name(rest);
  if (!dt) fail(ErrorCode::Usage, "-i {}: unknown dtype '{}'", p.name, rest);
  p.dtype = *dt;
  if (flag == "weak") {
    if (!(p.dtype == DType::Int64 || p.dtype == DType::Float64 || p.dtype == DType::Complex128 || p.dtype == DType::Bool))
      fail(ErrorCode::Usage, "-i {}: a weak scalar is int64, float64, complex128 or bool", p.name);
    p.weak = true;
  } else if (flag == "raw") {
    p.raw = true;
  } else if (!flag.empty()) {
    fail(ErrorCode::Usage, "-i {}: unknown flag ':{}' (use :weak or :raw)", p.name, flag);
  }
  return p;
}

int compile_command(const CompileArgs& a, cache::KernelCache& kc) {
  check_name(a.name, "--name");
  std::vector<Param> params;
  for (const auto& s : a.inputs) params.push_back(parse_param(s));
  std::vector<OutputDecl> decl;
  for (const auto& t : a.types) {
    std::size_t eq = t.find('=');
    auto dt = eq == std::string::npos ? std::nullopt : dtype_from_name(t.substr(eq + 1));
    if (!dt) fail(ErrorCode::Usage, "-t expects NAME=DTYPE, got '{}'", quoted_text(t));
    check_name(t.substr(0, eq), "-t");
    decl.push_back(OutputDecl{t.substr(0, eq), *dt});
  }
  Program p = compile_program(a.program, params, decl);
  CompileOptions co;
  co.arch = cap_arch(a.arch.empty() ? 90 : parse_arch(a.arch));
  co.fast_math = a.fast_math;
  std::vector<KernelLayout> layouts;
  if (a.layout == "contiguous" || a.layout == "all") {
    layouts.push_back(contiguous_layout(p, std::min(4, max_vec(p))));
    layouts.push_back(contiguous_layout(p, 1));
  }
  if (a.layout == "strided" || a.layout == "all") layouts.push_back(strided_layout(p, a.ndim));
  if (layouts.empty()) fail(ErrorCode::Usage, "--layout must be contiguous, strided or all, got '{}'", a.layout);
  const std::string options = options_string(co), target = fmt::format("sm_{}", co.arch);
  for (const KernelLayout& l : layouts) {
    std::string source = generate_source(p, l, a.name);
    cache::Key key = cache::make_key(source, options, target, nvrtc_version());
    bool compiled = false;
    auto t0 = std::chrono::steady_clock::now();
    compile_through_cache(source, a.name, co, &compiled);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    std::printf("%s  %s  %-28s %s (%.1f ms)\n", key.hex().c_str(), target.c_str(), l.key_string().c_str(),
                compiled ? "compiled" : "already cached", ms);
  }
  if (!kc.disk_writable()) fail(ErrorCode::Data, "the cache directory {} cannot be written: nothing was stored", kc.config().dir);
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"jitcache: precompile cujit kernels into the disk cache and maintain it.\n"
               "The cache lives in $CUJIT_CACHE_DIR, else $XDG_CACHE_HOME/cujit, else ~/.cache/cujit."};
  app.require_subcommand(1);
  CompileArgs ca;
  auto* compile = app.add_subcommand("compile", "compile a program's kernels into the cache (no GPU needed)");
  compile->add_option("PROGRAM", ca.program, "the program, e.g. 'out = sin(x)*5'")->required();
  compile->add_option("-i,--input", ca.inputs, "NAME=DTYPE, NAME=DTYPE:weak or NAME=DTYPE:raw (in the order the API passes them)")
      ->allow_extra_args(false);
  compile->add_option("-t,--type", ca.types, "NAME=DTYPE: an output's dtype")->allow_extra_args(false);
  compile->add_option("--arch", ca.arch, "target GPU, e.g. sm_90 (default sm_90, capped to what NVRTC supports)");
  compile->add_option("--layout", ca.layout, "contiguous (vectorized and scalar), strided or all");
  compile->add_option("--ndim", ca.ndim, "dimensions of the strided layout");
  compile->add_option("--name", ca.name, "kernel name (ElementwiseKernel's name)");
  compile->add_flag("--fast-math", ca.fast_math, "compile with --use_fast_math");
  auto* list = app.add_subcommand("list", "list the entries");
  bool remove_bad = false;
  auto* verify = app.add_subcommand("verify", "read and checksum every entry");
  verify->add_flag("--remove", remove_bad, "remove the entries that fail");
  std::string max_size, older_than;
  auto* prune = app.add_subcommand("prune", "remove old entries, or the least recently used beyond a size");
  prune->add_option("--max-size", max_size, "keep at most this much, e.g. 500M");
  prune->add_option("--older-than", older_than, "remove entries unused for this long, e.g. 30d");
  auto* clear = app.add_subcommand("clear", "remove every entry");
  auto* stats = app.add_subcommand("stats", "where the cache is, how many entries and bytes");
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "jitcache: %s\nRun 'jitcache --help' for the commands.\n", e.what());
    return static_cast<int>(ErrorCode::Usage);
  }
  try {
    cache::KernelCache& kc = cache::global_cache();
    if (!kc.config().enabled) fail(ErrorCode::Usage, "the disk cache is off (CUJIT_CACHE=0)");
    if (*compile) return compile_command(ca, kc);
    if (*list) {
      auto entries = kc.list();
      for (const auto& e : entries)
        std::printf("%s  %-7s %10s  used %s ago%s\n", e.key.hex().c_str(), e.target.empty() ? "?" : e.target.c_str(),
                    human(e.size).c_str(), age(e.mtime).c_str(), e.problem.empty() ? "" : ("  BAD: " + e.problem).c_str());
      std::printf("%zu entries in %s\n", entries.size(), kc.config().dir.c_str());
      return 0;
    }
    if (*verify) {
      auto entries = kc.verify(remove_bad);
      std::size_t bad = 0;
      for (const auto& e : entries)
        if (!e.problem.empty()) {
          ++bad;
          std::printf("%s: %s%s\n", e.path.c_str(), e.problem.c_str(), remove_bad ? " (removed)" : "");
        }
      std::printf("%zu entries checked, %zu bad\n", entries.size(), bad);
      return bad && !remove_bad ? static_cast<int>(ErrorCode::Data) : 0;
    }
    if (*prune) {
      cache::PruneOptions po;
      if (!max_size.empty()) po.max_bytes = parse_size(max_size);
      if (!older_than.empty()) po.older_than = parse_age(older_than);
      if (!po.max_bytes && !po.older_than) fail(ErrorCode::Usage, "prune needs --max-size or --older-than");
      auto r = kc.prune(po);
      std::printf("removed %llu entries (%s), kept %llu (%s)\n", static_cast<unsigned long long>(r.removed),
                  human(r.removed_bytes).c_str(), static_cast<unsigned long long>(r.kept), human(r.kept_bytes).c_str());
      return 0;
    }
    if (*clear) {
      std::printf("removed %llu entries\n", static_cast<unsigned long long>(kc.clear()));
      return 0;
    }
    if (*stats) {
      auto entries = kc.list();
      std::uint64_t bytes = 0;
      for (const auto& e : entries) bytes += e.size;
      std::printf("directory: %s\nentries: %zu\nsize: %s\nwritable: %s\nNVRTC: %d\n", kc.config().dir.c_str(),
                  entries.size(), human(bytes).c_str(), kc.disk_writable() ? "yes" : "no", nvrtc_version());
      return 0;
    }
    return 0;
  } catch (const Error& e) {
    if (e.code() == ErrorCode::Program) std::fprintf(stderr, "%s\n", e.what());
    else std::fprintf(stderr, "jitcache: %s\n", e.what());
    return e.exit_code();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "jitcache: internal error: %s\n", e.what());
    return static_cast<int>(ErrorCode::Internal);
  }
}

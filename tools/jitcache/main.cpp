// jitcache: precompile kernels into the disk cache (no GPU needed), and
// inspect, verify, prune or clear the cache.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <mutex>

#include "lang/check.hpp"
#include "gpu/codegen.hpp"
#include "gpu/compile.hpp"
#include "core/driver.hpp"
#include "cujit/error.hpp"
#include "core/fail.hpp"
#include "cache/archive.hpp"
#include "cujit/precompile.hpp"
#include "cache/kernel_cache.hpp"
#include "gpu/kernel_key.hpp"
#include "gpu/launch.hpp"
#include "api/manifest.hpp"
#include "core/number.hpp"
#include "api/precompile.hpp"
#include "cache/record.hpp"
#include "cache/kernel_cache.hpp"
#include "gpu/launch.hpp"
#include "api/manifest.hpp"
#include "core/names.hpp"
#include "core/number.hpp"
#include "api/precompile.hpp"
#include "cache/record.hpp"
#include "../tool_common.hpp"

using namespace cujit;

namespace {

// "100M", "2G", "4096" -> bytes.
std::uint64_t parse_size(const std::string& s) {
  double v = 0;
  const std::size_t used = parse_double_prefix(s, v);  // not std::stod, which follows the locale
  std::string unit = s.substr(used);
  double mult = unit.empty() || unit == "B" ? 1 : unit == "K" || unit == "KB" ? 1e3 : unit == "M" || unit == "MB" ? 1e6
              : unit == "G" || unit == "GB" ? 1e9 : unit == "KiB" ? 1024.0 : unit == "MiB" ? 1048576.0 : unit == "GiB" ? 1073741824.0 : -1;
  if (used == 0 || mult < 0 || v < 0)
    fail(ErrorCode::Usage, "--max-size {}: expected a size such as 500M, 2G or 4096 (bytes)", s);
  return static_cast<std::uint64_t>(v * mult);
}

// "30d", "12h", "90m", "45s" -> seconds.
std::chrono::seconds parse_age(const std::string& s) {
  double v = 0;
  const std::size_t used = parse_double_prefix(s, v);  // not std::stod, which follows the locale
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

// CUJIT_CACHE=0 is a state the user chose, not a mistake: each command says
// so and succeeds (compile still checks and compiles, in memory).
std::string disabled() {
  const char* v = std::getenv("CUJIT_CACHE");
  return fmt::format("cache disabled by CUJIT_CACHE={}", v ? v : "0");
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
  auto dt = dtype_from_numpy(rest);
  if (!dt) fail(ErrorCode::Usage, "-i {}: {}", p.name, dtype_spelling_problem(rest));
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
    if (eq == std::string::npos) fail(ErrorCode::Usage, "-t expects NAME=DTYPE, got '{}'", quoted_text(t));
    auto dt = dtype_from_numpy(t.substr(eq + 1));
    if (!dt) fail(ErrorCode::Usage, "-t {}: {}", t.substr(0, eq), dtype_spelling_problem(t.substr(eq + 1)));
    check_name(t.substr(0, eq), "-t");
    decl.push_back(OutputDecl{t.substr(0, eq), *dt});
  }
  auto p = std::make_shared<Program>(compile_program(a.program, params, decl));
  GpuOptions go;
  go.kernel_name = a.name;
  go.fast_math = a.fast_math;
  GpuProgram g(p, go);
  const int arch = cap_arch(a.arch.empty() ? 90 : parse_arch(a.arch));
  // The launcher's planning (GpuProgram::plan): the vector width a launch
  // chooses for these dtypes, and the scalar kernel misaligned arrays get.
  std::vector<KernelLayout> layouts;
  if (a.layout == "contiguous" || a.layout == "all") {
    layouts.push_back(layout_for(g, {}, "contiguous", false, 1));
    if (layouts.back().vec > 1) layouts.push_back(contiguous_layout(*p, 1));
  }
  if (a.layout == "strided" || a.layout == "all") layouts.push_back(layout_for(g, {}, "strided", false, a.ndim));
  if (layouts.empty()) fail(ErrorCode::Usage, "--layout must be contiguous, strided or all, got '{}'", a.layout);
  const std::string target = fmt::format("sm_{}", arch);
  for (const KernelLayout& l : layouts) {
    bool compiled = false;
    auto t0 = std::chrono::steady_clock::now();
    g.compile(l, arch, &compiled);
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    CompileOptions co;
    co.arch = arch;
    co.fast_math = a.fast_math;
    cache::Key key = kernel_cache_key(g.source(l), co);
    std::printf("%s  %s  %-28s %s (%.1f ms)\n", key.hex().c_str(), target.c_str(), l.key_string().c_str(),
                compiled ? "compiled" : "already cached", ms);
  }
  if (!kc.config().enabled) {
    std::printf("%s: compiled, nothing stored\n", disabled().c_str());
    return 0;
  }
  if (!kc.disk_writable()) fail(ErrorCode::Data, "the cache directory {} cannot be written: nothing was stored", kc.config().dir);
  return 0;
}

std::string json_quote(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\', out += c;
    else if (c == '\n') out += "\\n";
    else if (static_cast<unsigned char>(c) < 0x20) out += fmt::format("\\u{:04x}", static_cast<unsigned char>(c));
    else out += c;
  }
  return out + "\"";
}

// What an entry was made from, from the recipe in its PTX (src/cache/record.hpp).
struct Made {
  std::string recipe, name, program, dtypes, layout;
};

Made made_of(const std::string& path) {
  Made m;
  FILE* f = std::fopen(path.c_str(), "rb");
  if (!f) return m;
  std::string bytes;
  char buf[65536];
  std::size_t n;
  while ((n = std::fread(buf, 1, sizeof buf, f)) > 0) bytes.append(buf, n);
  std::fclose(f);
  cache::Decoded<cache::Entry> d = cache::decode_entry(bytes, std::nullopt, {});
  if (!d.value) return m;
  m.recipe = recipe_from_ptx(d.value->ptx);
  if (m.recipe.empty() || !manifest_supported()) return m;
  try {
    Manifest man = parse_manifest(m.recipe, "entry");
    if (man.kernels.size() != 1) return m;
    const ManifestKernel& k = man.kernels[0];
    m.name = k.name;
    m.program = k.elementwise ? k.operation : k.program;
    for (const auto& in : k.inputs) m.dtypes += (m.dtypes.empty() ? "" : " ") + in.name + "=" + in.dtype + (in.flag.empty() ? "" : ":" + in.flag);
    for (const auto& [ph, ts] : k.types) m.dtypes += (m.dtypes.empty() ? "" : " ") + ph + "=" + std::string(dtype_name(ts[0]));
    for (const auto& [in, kind] : k.scalars) m.dtypes += (m.dtypes.empty() ? "" : " ") + in + ":" + kind;
    if (!k.layouts.empty()) m.layout = k.layouts[0].name;
    // A pass of a program with reductions: the shapes it was compiled for.
    for (const ManifestKernel::ShapeSet& set : k.shapes) {
      std::string s;
      for (const auto& [in, ext] : set.inputs) {
        std::string e;
        if (ext)
          for (std::size_t d = 0; d < ext->size(); ++d) e += (d ? "x" : "") + std::to_string((*ext)[d]);
        s += (s.empty() ? "" : " ") + in + "=" + (ext ? "(" + e + ")" : "scalar");
      }
      m.layout = "shapes " + s;
    }
  } catch (const Error&) {
  }
  return m;
}

int list_command(cache::KernelCache& kc, bool json) {
  auto entries = kc.list();
  if (json) std::printf("[");
  bool first = true;
  for (const auto& e : entries) {
    Made m = e.problem.empty() ? made_of(e.path) : Made{};
    if (json) {
      std::printf("%s\n  {\"key\": \"%s\", \"path\": %s, \"target\": %s, \"size\": %llu, \"last_use\": %lld, "
                  "\"name\": %s, \"program\": %s, \"dtypes\": %s, \"layout\": %s, \"recipe\": %s, \"problem\": %s}",
                  first ? "" : ",", e.key.hex().c_str(), json_quote(e.path).c_str(), json_quote(e.target).c_str(),
                  static_cast<unsigned long long>(e.size), static_cast<long long>(e.mtime), json_quote(m.name).c_str(),
                  json_quote(m.program).c_str(), json_quote(m.dtypes).c_str(), json_quote(m.layout).c_str(),
                  json_quote(m.recipe).c_str(), json_quote(e.problem).c_str());
      first = false;
      continue;
    }
    std::string what = !e.problem.empty() ? "  BAD: " + e.problem
                       : m.program.empty() ? std::string(m.recipe.empty() ? "  (no recipe stored)" : "")
                                           : fmt::format("  {}: {}  [{}]  {}", m.name, m.program, m.dtypes, m.layout);
    std::printf("%s  %-7s %10s  used %s ago%s\n", e.key.hex().c_str(), e.target.empty() ? "?" : e.target.c_str(),
                human(e.size).c_str(), age(e.mtime).c_str(), what.c_str());
  }
  if (json) std::printf("%s]\n", entries.empty() ? "" : "\n");
  else std::printf("%zu entries in %s\n", entries.size(), kc.config().dir.c_str());
  return 0;
}

int precompile_command(const std::string& manifest, const std::vector<std::string>& archs, int jobs,
                       cache::KernelCache& kc) {
  if (jobs < 0) fail(ErrorCode::Usage, "-j {}: expected a number of threads, 0 for one per core", jobs);
  PrecompileOptions po;
  po.archs = archs;
  po.jobs = jobs;
  const bool tty = ::isatty(STDERR_FILENO) == 1;
  std::size_t compiled = 0, cached = 0, failed = 0;
  po.progress = [&](const PrecompileItem& it) {
    compiled += it.result == PrecompileItem::Result::Compiled;
    cached += it.result == PrecompileItem::Result::Cached;
    failed += it.result == PrecompileItem::Result::Failed;
    if (tty) {
      const int width = 30;
      int fill = static_cast<int>(width * it.done / std::max<std::size_t>(1, it.total));
      std::fprintf(stderr, "\r[%s%s] %zu/%zu  compiled %zu  cached %zu  failed %zu ", std::string(static_cast<std::size_t>(fill), '#').c_str(),
                   std::string(static_cast<std::size_t>(width - fill), '.').c_str(), it.done, it.total, compiled, cached, failed);
      if (it.done == it.total) std::fprintf(stderr, "\n");
    } else {
      std::printf("[%zu/%zu] %-14s %s  %s  %s (%.1f ms)\n", it.done, it.total,
                  it.result == PrecompileItem::Result::Compiled ? "compiled" : it.result == PrecompileItem::Result::Cached ? "already cached" : "FAILED",
                  it.target.c_str(), it.kernel.c_str(), it.layout.c_str(), it.ms);
      std::fflush(stdout);
    }
  };
  auto t0 = std::chrono::steady_clock::now();
  PrecompileReport r;
  try {
    r = precompile(manifest, po);
  } catch (const Error& e) {
    // The library names PrecompileOptions::archs; on the command line that is --arch.
    if (e.code() != ErrorCode::Usage || std::string_view(e.what()).rfind(kNoTarget, 0) != 0) throw;
    fail(ErrorCode::Usage, "{}: name one, e.g. --arch sm_90, or a manifest kernel's arch field (there is no GPU to take it "
         "from: {})", kNoTarget, gpu_unavailable_reason());
  }
  double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  for (const std::string& e : r.errors) std::fprintf(stderr, "jitcache: %s\n", e.c_str());
  std::printf("%zu kernels: %zu compiled, %zu already cached, %zu failed (%.1f s)\n", r.compiled + r.cached + r.failed,
              r.compiled, r.cached, r.failed, s);
  if (r.compiled > 0 && !kc.disk_writable())
    fail(ErrorCode::Data, "the cache directory {} cannot be written: nothing was stored", kc.config().dir);
  return r.exit_code;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"jitcache: precompile cujit kernels into the disk cache and maintain it.\n"
               "The cache lives in $CUJIT_CACHE_DIR, else $XDG_CACHE_HOME/cujit, else ~/.cache/cujit."};
  app.set_version_flag("--version", tools::version_text("jitcache"));
  app.footer(tools::help_footer());
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
  std::string manifest;
  std::vector<std::string> archs;
  int jobs = 0;
  auto* pre = app.add_subcommand("precompile", "compile every kernel of a manifest (docs/deploy.md) into the cache, no GPU needed");
  pre->add_option("MANIFEST", manifest, "the manifest (TOML), e.g. one recorded with CUJIT_RECORD=FILE")->required();
  pre->add_option("--arch", archs, "targets, e.g. sm_80,sm_90 (default: each kernel's arch field, else GPU 0's)")
      ->delimiter(',');
  pre->add_option("-j,--jobs", jobs, "compile threads (default: one per core)");
  std::string pack;
  std::vector<std::string> export_archs;
  auto* exp = app.add_subcommand("export", "pack the cache's entries into one file to ship");
  exp->add_option("FILE", pack, "the file to write")->required();
  exp->add_option("--arch", export_archs, "only entries for these targets, e.g. sm_80,sm_90")->delimiter(',');
  auto* imp = app.add_subcommand("import", "verify an export file and add its entries to the cache");
  imp->add_option("FILE", pack, "a file written by 'jitcache export'")->required();
  bool json = false;
  auto* list = app.add_subcommand("list", "list the entries: key, target, size, last use, program, dtypes, layout");
  list->add_flag("--json", json, "as JSON");
  bool remove_bad = false;
  auto* verify = app.add_subcommand("verify", "read and checksum every entry");
  verify->add_flag("--remove", remove_bad, "remove the entries that fail");
  std::string max_size, older_than;
  auto* prune = app.add_subcommand("prune", "remove old entries, or the least recently used beyond a size");
  prune->add_option("--max-size", max_size, "keep at most this much, e.g. 500M");
  prune->add_option("--older-than", older_than, "remove entries unused for this long, e.g. 30d");
  auto* clear = app.add_subcommand("clear", "remove every entry");
  auto* stats = app.add_subcommand("stats", "where the cache is, how many entries and bytes");
  stats->add_flag("--json", json, "as JSON");
  try {
    app.parse(argc, argv);
  } catch (const CLI::Success& e) {  // --help, --version
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::fprintf(stderr, "jitcache: %s\nRun 'jitcache --help' for the commands.\n", e.what());
    return static_cast<int>(ErrorCode::Usage);
  }
  try {
    cache::KernelCache& kc = cache::global_cache();
    if (*compile) return compile_command(ca, kc);
    if (*pre) return precompile_command(manifest, archs, jobs, kc);
    if (!kc.config().enabled) {
      if (*stats)
        std::printf("%s\ndirectory: %s (not used)\nNVRTC: %d\n", disabled().c_str(), kc.config().dir.c_str(), nvrtc_version());
      else
        std::printf("%s: nothing to %s\n", disabled().c_str(), app.get_subcommands().front()->get_name().c_str());
      return 0;
    }
    // A folder others could write is not touched (cache/FORMAT.md, "Trust").
    if (!kc.disk_trusted()) {
      fail(ErrorCode::Data, "not using the cache folder {}: others could write it (see the warning above)",
           kc.config().dir);
    }
    if (*exp) {
      std::vector<std::string> targets;
      for (const auto& a : export_archs) targets.push_back(fmt::format("sm_{}", parse_arch(a)));
      auto r = cache::export_cache(kc, pack, targets, nvrtc_version());
      std::printf("exported %llu entries (%s) to %s%s\n", static_cast<unsigned long long>(r.entries), human(r.bytes).c_str(),
                  pack.c_str(), r.skipped_bad ? fmt::format("; left out {} damaged entries", r.skipped_bad).c_str() : "");
      return 0;
    }
    if (*imp) {
      auto r = cache::import_cache(kc, pack, nvrtc_version());
      std::printf("imported %llu entries into %s (%llu already there)\n", static_cast<unsigned long long>(r.added),
                  kc.config().dir.c_str(), static_cast<unsigned long long>(r.present));
      return 0;
    }
    if (*list) return list_command(kc, json);
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
      if (json)
        std::printf("{\"directory\": %s, \"entries\": %zu, \"bytes\": %llu, \"writable\": %s, \"nvrtc\": %d}\n",
                    json_quote(kc.config().dir).c_str(), entries.size(), static_cast<unsigned long long>(bytes),
                    kc.disk_writable() ? "true" : "false", nvrtc_version());
      else
        std::printf("directory: %s\nentries: %zu\nsize: %s\nwritable: %s\nNVRTC: %d\n", kc.config().dir.c_str(),
                    entries.size(), human(bytes).c_str(), kc.disk_writable() ? "yes" : "no", nvrtc_version());
      return 0;
    }
    return 0;
  } catch (const Error& e) {
    return tools::report("jitcache", e);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "jitcache: internal error: %s\n", e.what());
    return static_cast<int>(ErrorCode::Internal);
  }
}

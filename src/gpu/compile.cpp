#include "gpu/compile.hpp"

#include <dlfcn.h>
#include <fcntl.h>
#include <unistd.h>
#include <nvrtc.h>
#include <sys/stat.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <mutex>
#include <string_view>
#include <utility>

#include "core/fail.hpp"

namespace cujit {
namespace {

std::string parent_dir(const std::string& path) {
  auto k = path.find_last_of('/');
  if (k == std::string::npos) return ".";
  return k == 0 ? "/" : path.substr(0, k);
}

// The folder the loaded libnvrtc came from ("" when unknown).
std::string nvrtc_lib_dir() {
  Dl_info info{};
  if (dladdr(reinterpret_cast<void*>(&nvrtcVersion), &info) && info.dli_fname &&
      info.dli_fname[0] == '/')
    return parent_dir(info.dli_fname);
  return {};
}

std::string builtins_soname() {
  int major = 0, minor = 0;
  if (nvrtcVersion(&major, &minor) != NVRTC_SUCCESS) return "libnvrtc-builtins.so";
  return fmt::format("libnvrtc-builtins.so.{}.{}", major, minor);
}

// NVRTC dlopens its builtins library by soname on the first compile. That
// search ignores the RUNPATH that found libnvrtc itself, so a toolkit installed
// from NVIDIA's runfile (no ldconfig entry) fails there. The dynamic loader
// matches an already loaded object by soname, so loading the builtins once by
// absolute path, from the folder libnvrtc came from, makes NVRTC's own dlopen
// succeed without the user setting LD_LIBRARY_PATH. The handle is kept for the
// life of the process, as NVRTC's own would be.
void preload_nvrtc_builtins() {
  static const bool done = [] {
    std::string dir = nvrtc_lib_dir();
    if (!dir.empty()) dlopen((dir + "/" + builtins_soname()).c_str(), RTLD_NOW | RTLD_GLOBAL);
    return true;
  }();
  (void)done;
}

// What a user can do when NVRTC could not load its builtins after all.
std::string builtins_hint() {
  std::string dir = nvrtc_lib_dir();
  return fmt::format(
      "NVRTC could not load {} (it ships with the CUDA toolkit beside libnvrtc{}); add the "
      "toolkit's library folder to LD_LIBRARY_PATH (e.g. export LD_LIBRARY_PATH={}) or register "
      "it with ldconfig",
      builtins_soname(), dir.empty() ? "" : " in " + dir,
      dir.empty() ? "/usr/local/cuda/lib64" : dir);
}

// A failing NVRTC call other than the compile itself means the NVRTC install
// or the machine is at fault (missing builtins library, out of memory).
void nvrtc_check(nvrtcResult r, const char* call) {
  if (r == NVRTC_ERROR_BUILTIN_OPERATION_FAILURE)
    fail(ErrorCode::Device, "{} failed: {}: {}", call, nvrtcGetErrorString(r), builtins_hint());
  if (r != NVRTC_SUCCESS) fail(ErrorCode::Device, "{} failed: {}", call, nvrtcGetErrorString(r));
}

class Program {
 public:
  Program(const std::string& source, const std::string& name) {
    nvrtc_check(nvrtcCreateProgram(&prog_, source.c_str(), name.c_str(), 0, nullptr, nullptr),
                "nvrtcCreateProgram");
  }
  ~Program() { nvrtcDestroyProgram(&prog_); }
  Program(const Program&) = delete;
  Program& operator=(const Program&) = delete;
  nvrtcProgram get() const { return prog_; }

  std::string log() const {
    std::size_t n = 0;
    nvrtc_check(nvrtcGetProgramLogSize(prog_, &n), "nvrtcGetProgramLogSize");
    std::string s(n, '\0');
    if (n > 0) nvrtc_check(nvrtcGetProgramLog(prog_, &s[0]), "nvrtcGetProgramLog");
    while (!s.empty() && (s.back() == '\0' || s.back() == '\n')) s.pop_back();
    return s;
  }
  std::string cubin() const {
    std::size_t n = 0;
    nvrtc_check(nvrtcGetCUBINSize(prog_, &n), "nvrtcGetCUBINSize");
    std::string s(n, '\0');
    if (n > 0) nvrtc_check(nvrtcGetCUBIN(prog_, &s[0]), "nvrtcGetCUBIN");
    return s;
  }
  // Empty when this NVRTC keeps no PTX for the target (older releases did so
  // for sm_XX targets); the caller then compiles again for compute_XX.
  std::string ptx() const {
    std::size_t n = 0;
    if (nvrtcGetPTXSize(prog_, &n) != NVRTC_SUCCESS || n <= 1) return {};
    std::string s(n, '\0');
    nvrtc_check(nvrtcGetPTX(prog_, &s[0]), "nvrtcGetPTX");
    while (!s.empty() && s.back() == '\0') s.pop_back();
    return s;
  }

 private:
  nvrtcProgram prog_ = nullptr;
};

bool is_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}
bool is_dir(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

// The folders tried for the toolkit headers, in order (see compile.hpp).
std::vector<std::string> include_candidates() {
  std::vector<std::string> c;
  for (const char* var : {"CUDA_HOME", "CUDA_PATH"}) {
    const char* v = std::getenv(var);
    if (v && *v) c.push_back(std::string(v) + "/include");
  }
  // The headers that match NVRTC best are the ones of its own toolkit.
  std::string lib = nvrtc_lib_dir();
  if (!lib.empty()) c.push_back(parent_dir(lib) + "/include");
#ifdef CUJIT_CUDA_INCLUDE_DIR
  c.push_back(CUJIT_CUDA_INCLUDE_DIR);
#endif
  c.push_back("/usr/local/cuda/include");
  c.push_back("/usr/include");
  return c;
}

std::string join(const std::vector<std::string>& v, const char* sep) {
  std::string s;
  for (const auto& x : v) {
    if (!s.empty()) s += sep;
    s += x;
  }
  return s;
}

// `#include <name>` and `#include "name"` directives of the source, in order.
std::vector<std::string> included_headers(const std::string& source) {
  std::vector<std::string> out;
  std::size_t pos = 0;
  while (pos < source.size()) {
    std::size_t end = source.find('\n', pos);
    if (end == std::string::npos) end = source.size();
    std::size_t i = source.find_first_not_of(" \t", pos);
    if (i < end && source[i] == '#') {
      i = source.find_first_not_of(" \t", i + 1);
      if (i < end && source.compare(i, 7, "include") == 0) {
        i = source.find_first_not_of(" \t", i + 7);
        if (i < end && (source[i] == '<' || source[i] == '"')) {
          char close = source[i] == '<' ? '>' : '"';
          std::size_t j = source.find(close, i + 1);
          if (j < end) out.push_back(source.substr(i + 1, j - i - 1));
        }
      }
    }
    pos = end + 1;
  }
  return out;
}

// Include folders the caller passed in CompileOptions::extra.
std::vector<std::string> extra_include_dirs(const std::vector<std::string>& extra) {
  std::vector<std::string> dirs;
  for (std::size_t k = 0; k < extra.size(); ++k) {
    const std::string& o = extra[k];
    if (o == "-I" || o == "--include-path") {
      if (k + 1 < extra.size()) dirs.push_back(extra[++k]);
    } else if (o.compare(0, 2, "-I") == 0) {
      dirs.push_back(o.substr(2));
    } else if (o.compare(0, 15, "--include-path=") == 0) {
      dirs.push_back(o.substr(15));
    }
  }
  return dirs;
}

// The source with right-aligned line numbers, as jitify prints it, so an
// NVRTC log line "k.cu(12): error" can be read against it.
std::string numbered(const std::string& source) {
  std::vector<std::string_view> lines;
  std::string_view rest(source);
  while (!rest.empty()) {
    std::size_t end = rest.find('\n');
    lines.push_back(rest.substr(0, end));
    rest = end == std::string_view::npos ? std::string_view() : rest.substr(end + 1);
  }
  int width = static_cast<int>(std::to_string(lines.size()).size());
  std::string out;
  for (std::size_t n = 0; n < lines.size(); ++n)
    out += fmt::format("{:>{}} | {}\n", n + 1, width, lines[n]);
  return out;
}

int resolve_arch(int arch) {
  if (arch > 0) return cap_arch(arch);
  if (arch < 0)
    fail(ErrorCode::Usage, "invalid CUDA architecture {}: expected e.g. 90 for sm_90", arch);
  // Compile does not ask the driver which GPU there is: its callers know the
  // device they compile for (the launcher) or take the arch from the user.
  fail(ErrorCode::Usage, "no CUDA architecture given: pass one, e.g. 90 for sm_90");
}

// cujit's own options, those that decide the code; arch already resolved.
std::vector<std::string> code_options(int arch, const CompileOptions& opt) {
  std::vector<std::string> o = {"-std=c++17", fmt::format("--gpu-architecture=sm_{}", arch),
                                // Generated helpers need no __device__ on each function:
                                // NVRTC compiles no host code anyway.
                                "-default-device"};
  // -minimal (NVRTC 12.4+) drops texture, device-runtime and driver-type
  // declarations that elementwise kernels never use; it cuts the front end's
  // share of a small compile by about 15%.
  if (nvrtc_version() >= 12040) o.push_back("-minimal");
  if (opt.fast_math) o.push_back("--use_fast_math");
  o.insert(o.end(), opt.extra.begin(), opt.extra.end());
  return o;
}

nvrtcResult run_compile(const Program& p, const std::vector<std::string>& options) {
  std::vector<const char*> argv;
  argv.reserve(options.size());
  for (const auto& s : options) argv.push_back(s.c_str());
  return nvrtcCompileProgram(p.get(), static_cast<int>(argv.size()), argv.data());
}

bool log_says_missing_header(const std::string& log) {
  return log.find("cannot open source file") != std::string::npos ||
         log.find("could not open source file") != std::string::npos;
}

[[noreturn]] void compile_failed(nvrtcResult r, const char* stage, const std::string& name,
                                 const std::string& source, const std::vector<std::string>& options,
                                 const std::string& log, bool user_code) {
  int v = nvrtc_version();
  CompileError::Parts parts{stage, log, join(options, " "), numbered(source)};
  std::string details = fmt::format("NVRTC {}.{}, options: {}\nNVRTC log:\n{}\nsource:\n{}", v / 1000,
                                    v % 1000 / 10, parts.options, log.empty() ? "(empty)" : log, parts.source);
  if (r == NVRTC_ERROR_COMPILATION && log_says_missing_header(log))
    fail(ErrorCode::Device,
         fmt::format("CUDA headers missing: the kernel '{}' includes a header NVRTC cannot find; set "
                     "CUDA_HOME to the CUDA toolkit root\n{}",
                     name, details),
         std::move(parts));
  // The caller's own CUDA code (raw CUDA mode): the error is theirs to fix,
  // and NVRTC's log, which points into their lines, is what they need.
  if (user_code && (r == NVRTC_ERROR_COMPILATION || r == NVRTC_ERROR_INVALID_OPTION))
    fail(ErrorCode::Program,
         fmt::format("your CUDA code failed to compile: kernel '{}' ({})\n{}", name, nvrtcGetErrorString(r), details),
         std::move(parts));
  if (r == NVRTC_ERROR_COMPILATION || r == NVRTC_ERROR_INVALID_OPTION)
    fail(ErrorCode::Internal,
         fmt::format("internal error: the generated CUDA source of '{}' failed to compile ({})\n{}", name,
                     nvrtcGetErrorString(r), details),
         std::move(parts));
  if (r == NVRTC_ERROR_BUILTIN_OPERATION_FAILURE)
    fail(ErrorCode::Device,
         fmt::format("nvrtcCompileProgram failed on '{}': {}: {}\n{}", name, nvrtcGetErrorString(r), builtins_hint(),
                     details),
         std::move(parts));
  fail(ErrorCode::Device,
       fmt::format("nvrtcCompileProgram failed on '{}': {}\n{}", name, nvrtcGetErrorString(r), details),
       std::move(parts));
}

// Fails before compiling when a header the kernel includes exists nowhere
// NVRTC will look: the message then says what to install or set, rather
// than leaving the reader to decode a catastrophic-error log.
std::vector<std::string> include_options(const std::string& source, const std::string& name,
                                         const CompileOptions& opt) {
  std::vector<std::string> headers = included_headers(source);
  if (headers.empty()) return {};
  const std::vector<std::string>& cuda_dirs = cuda_include_dirs();
  std::vector<std::string> dirs = extra_include_dirs(opt.extra);
  dirs.insert(dirs.end(), cuda_dirs.begin(), cuda_dirs.end());
  for (const auto& h : headers) {
    bool found = std::any_of(dirs.begin(), dirs.end(),
                             [&](const std::string& d) { return is_file(d + "/" + h); });
    if (found) continue;
    if (cuda_dirs.empty())
      fail(ErrorCode::Device,
           "CUDA headers missing: the kernel '{}' includes <{}>, but no CUDA toolkit include "
           "folder was found (looked for cuda_fp16.h in: {}); install the CUDA toolkit headers "
           "or set CUDA_HOME to the toolkit root",
           name, h, join(include_candidates(), ", "));
    fail(ErrorCode::Device,
         "CUDA headers missing: the kernel '{}' includes <{}>, which is in none of: {}; set "
         "CUDA_HOME to a complete CUDA toolkit",
         name, h, join(dirs, ", "));
  }
  std::vector<std::string> o;
  for (const auto& d : cuda_dirs) o.push_back("-I" + d);
  return o;
}

}  // namespace

void prewarm_nvrtc() noexcept {
  static std::once_flag once;
  try {
    std::call_once(once, [] {
      const char* env = std::getenv("CUJIT_PREWARM");
      if (env && std::string_view(env) == "0") return;
      // Asks the kernel to read libnvrtc and its builtins into the page cache
      // in the background (readahead): no thread of ours runs NVRTC code, so
      // a process that exits before it compiles has nothing to race with.
      // An earlier version compiled an empty kernel on a thread, which
      // crashed in libnvrtc's exit handlers when the process ended first.
      std::string dir = nvrtc_lib_dir();
      if (dir.empty()) return;
      Dl_info info{};
      std::vector<std::string> files = {dir + "/" + builtins_soname()};
      if (dladdr(reinterpret_cast<void*>(&nvrtcVersion), &info) && info.dli_fname) files.push_back(info.dli_fname);
      for (const std::string& f : files) {
        int fd = ::open(f.c_str(), O_RDONLY | O_CLOEXEC);
        if (fd < 0) continue;
        ::posix_fadvise(fd, 0, 0, POSIX_FADV_WILLNEED);
        ::close(fd);
      }
    });
  } catch (...) {
    // Nothing to warm: the first compile pays the start-up itself.
  }
}

int nvrtc_version() {
  static const int v = [] {
    int major = 0, minor = 0;
    nvrtc_check(nvrtcVersion(&major, &minor), "nvrtcVersion");
    return major * 1000 + minor * 10;
  }();
  return v;
}

std::vector<int> nvrtc_supported_archs() {
  // Never destroyed, so no exit path can read it after its destructor.
  static const std::vector<int>& archs = *new std::vector<int>([] {
    int n = 0;
    nvrtc_check(nvrtcGetNumSupportedArchs(&n), "nvrtcGetNumSupportedArchs");
    std::vector<int> a(static_cast<std::size_t>(n));
    if (n > 0) nvrtc_check(nvrtcGetSupportedArchs(a.data()), "nvrtcGetSupportedArchs");
    std::sort(a.begin(), a.end());
    return a;
  }());
  return archs;
}

int cap_arch(int wanted) {
  const std::vector<int>& a = nvrtc_supported_archs();
  auto it = std::upper_bound(a.begin(), a.end(), wanted);
  if (it == a.begin()) {
    int v = nvrtc_version();
    if (a.empty())
      fail(ErrorCode::Device, "NVRTC {}.{} reports no supported GPU architecture", v / 1000,
           v % 1000 / 10);
    fail(ErrorCode::Device,
         "NVRTC {}.{} cannot compile for sm_{}: it supports sm_{} to sm_{}; use a CUDA toolkit "
         "that still supports this GPU",
         v / 1000, v % 1000 / 10, wanted, a.front(), a.back());
  }
  return *(it - 1);
}

std::string options_string(const CompileOptions& opt) {
  return join(code_options(resolve_arch(opt.arch), opt), " ");
}

const std::vector<std::string>& cuda_include_dirs() {
  static const std::vector<std::string> dirs = [] {
    std::vector<std::string> d;
    for (const auto& c : include_candidates()) {
      if (!is_file(c + "/cuda_fp16.h")) continue;
      d.push_back(c);
      if (is_dir(c + "/cccl")) d.push_back(c + "/cccl");
      break;
    }
    return d;
  }();
  return dirs;
}

CompiledKernel compile_cuda(const std::string& source, const std::string& name_for_log,
                            const CompileOptions& opt) {
  auto t0 = std::chrono::steady_clock::now();
  CompiledKernel k;
  k.arch = resolve_arch(opt.arch);
  k.target = fmt::format("sm_{}", k.arch);
  std::vector<std::string> options = code_options(k.arch, opt);
  k.options = join(options, " ");
  std::vector<std::string> includes = include_options(source, name_for_log, opt);
  options.insert(options.end(), includes.begin(), includes.end());

  const std::string file = name_for_log + ".cu";
  preload_nvrtc_builtins();
  {
    Program p(source, file);
    nvrtcResult r = run_compile(p, options);
    std::string log = p.log();
    if (r != NVRTC_SUCCESS) compile_failed(r, "compile", name_for_log, source, options, log, opt.user_code);
    k.log = std::move(log);
    k.cubin = p.cubin();
    k.ptx = p.ptx();
  }
  if (k.cubin.size() < 4 || k.cubin.compare(0, 4, "\x7f" "ELF") != 0)
    fail(ErrorCode::Internal, "internal error: NVRTC returned no cubin for '{}' ({})",
         name_for_log, k.target);
  if (k.ptx.empty()) {
    // Only NVRTC releases that keep no PTX for sm_XX targets get here.
    std::vector<std::string> virt = options;
    std::replace(virt.begin(), virt.end(), fmt::format("--gpu-architecture=sm_{}", k.arch),
                 fmt::format("--gpu-architecture=compute_{}", k.arch));
    Program p(source, file);
    nvrtcResult r = run_compile(p, virt);
    if (r != NVRTC_SUCCESS) compile_failed(r, "ptx", name_for_log, source, virt, p.log(), opt.user_code);
    k.ptx = p.ptx();
    if (k.ptx.empty())
      fail(ErrorCode::Internal, "internal error: NVRTC returned no PTX for '{}' (compute_{})",
           name_for_log, k.arch);
  }
  k.compile_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  return k;
}

int parse_arch(const std::string& text, const char* flag) {
  std::string digits = text.rfind("sm_", 0) == 0 ? text.substr(3) : text;
  bool ok = !digits.empty() && digits.size() <= 4;
  for (char c : digits) ok = ok && c >= '0' && c <= '9';
  if (!ok || std::stoi(digits) == 0) fail(ErrorCode::Usage, "{} {}: expected sm_XX or XX, e.g. sm_90", flag, text);
  return std::stoi(digits);
}

}  // namespace cujit

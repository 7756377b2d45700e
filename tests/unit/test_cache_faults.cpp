// The kernel cache against a hostile or broken disk (issue 13): folders others
// can write, symbolic links and FIFOs in place of its files, entries whose
// checksum was recomputed after their kernel was damaged or swapped, read-only
// and full file systems, and NVRTC failing. Real kernels come from NVRTC for
// an explicit arch, so none of this needs a GPU.
#include <dirent.h>
#include <elf.h>
#include <fcntl.h>
#include <ftw.h>
#include <grp.h>
#include <pwd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <algorithm>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <functional>
#include <mutex>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include <fmt/format.h>

#include "catch.hpp"
#include "cache_test_util.hpp"
#include "lang/check.hpp"
#include "gpu/codegen.hpp"
#include "gpu/compile.hpp"
#include "cujit/error.hpp"
#include "cache/entry.hpp"
#include "cache/kernel_cache.hpp"
#include "cache/kernel_image.hpp"
#include "cache/key.hpp"
#include "gpu/launch.hpp"

using namespace cujit;
using namespace cujit::cache;

namespace {

using namespace cujit::cache::test;

std::string read_all(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  std::stringstream s;
  s << f.rdbuf();
  return s.str();
}

void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream f(path, std::ios::binary | std::ios::trunc);
  f << bytes;
  REQUIRE(f.good());
}

bool exists(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0;
}

bool is_regular(const std::string& path) {
  struct stat st;
  return ::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode);
}

std::vector<std::string> names_in(const std::string& dir) {
  std::vector<std::string> out;
  if (DIR* d = ::opendir(dir.c_str())) {
    while (dirent* e = ::readdir(d))
      if (std::strcmp(e->d_name, ".") != 0 && std::strcmp(e->d_name, "..") != 0) out.push_back(e->d_name);
    ::closedir(d);
  }
  std::sort(out.begin(), out.end());
  return out;
}

Entry fake(const std::string& tag) { return Entry{"sm_90", "CUBIN<" + tag + ">", "PTX<" + tag + ">", ""}; }

const Key kKey = make_key("__global__ void fault() {}", "-O3", "sm_90", 12040);

std::string warning_for(const std::string& path, const std::string& problem) {
  return "cujit: warning: ignoring kernel cache entry " + path + ": " + problem + "; recompiling";
}

// ---- Real kernels ------------------------------------------------------------

int test_arch() { return cap_arch(90); }

std::string kernel_source(const std::string& name, const std::string& params, const std::string& body) {
  return "extern \"C\" __global__ void " + name + "(" + params + ") {" + body + "}\n";
}

const std::string kName = "cujit_fault";
const std::string kParams = "float* y, const float* x, long long n";
const std::string kBody =
    "for (long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x; i < n; i += (long long)blockDim.x * "
    "gridDim.x) y[i] = x[i] * 3.0f;";

std::vector<ArgSlot> slots(std::initializer_list<std::pair<std::size_t, std::size_t>> sizes) {
  std::vector<ArgSlot> s;
  for (auto [size, align] : sizes) {
    ArgSlot a;
    a.size = size;
    a.align = align;
    s.push_back(a);
  }
  return s;
}
const std::vector<ArgSlot> kSig = slots({{8, 8}, {8, 8}, {8, 8}});

KernelExpect expect_for(const std::string& name, const std::vector<ArgSlot>& sig, int arch) {
  KernelExpect x;
  x.name = name;
  x.arch = arch;
  x.params.emplace();
  for (const ArgSlot& a : sig) x.params->push_back({a.size, a.align});
  return x;
}

Entry compiled_entry(const std::string& source, const std::string& name, int arch) {
  CompileOptions co;
  co.arch = arch;
  CompiledKernel k = compile_cuda(source, name, co);
  return Entry{k.target, k.cubin, k.ptx, ""};
}

// Where section `name`'s bytes lie in an ELF image.
std::pair<std::size_t, std::size_t> section_of(const std::string& img, const std::string& name) {
  Elf64_Ehdr h;
  std::memcpy(&h, img.data(), sizeof h);
  std::vector<Elf64_Shdr> sh(h.e_shnum);
  std::memcpy(sh.data(), img.data() + h.e_shoff, sh.size() * sizeof(Elf64_Shdr));
  const char* names = img.data() + sh[h.e_shstrndx].sh_offset;
  for (const Elf64_Shdr& s : sh)
    if (name == names + s.sh_name) return {s.sh_offset, s.sh_size};
  FAIL("no section " << name);
  return {0, 0};
}

}  // namespace

// ---- The kernel check on its own ----------------------------------------------------

TEST_CASE("kernel check: what NVRTC makes from cujit's code generator passes, for every layout", "[cache][fault]") {
  const int arch = test_arch();
  struct Row {
    const char* program;
    std::vector<Param> params;
  };
  const std::vector<Row> rows = {
      {"out = sin(x)*a", {Param{"x", DType::Float32, false, false}, Param{"a", DType::Float64, true, false}}},
      {"out = z * c", {Param{"z", DType::Complex128, false, false}, Param{"c", DType::Complex128, true, false}}},
      {"out = x * 2 + y", {Param{"x", DType::Float16, false, false}, Param{"y", DType::Int8, false, false}}},
      {"out = x + k", {Param{"x", DType::Int8, false, false}, Param{"k", DType::Int64, true, false}}},
      {"out = x[k - 1 - i]", {Param{"x", DType::Float64, false, true}, Param{"k", DType::Int64, true, false}}},
  };
  int checked = 0;
  for (const Row& r : rows) {
    Program p = compile_program(r.program, r.params);
    std::vector<KernelLayout> layouts = {contiguous_layout(p, 1), strided_layout(p, 3), strided_layout(p, 2, true)};
    if (max_vec(p) > 1) layouts.push_back(contiguous_layout(p, max_vec(p)));
    for (const KernelLayout& l : layouts) {
      CAPTURE(r.program, l.key_string());
      Entry e = compiled_entry(generate_source(p, l, "cujit_gen"), "cujit_gen", arch);
      CHECK(check_kernel_image(e, expect_for("cujit_gen", kernel_signature(p, l), arch)) == "");
      ++checked;
    }
  }
  CHECK(checked >= 15);
}

TEST_CASE("kernel check: NVRTC's images pass for every SM it supports", "[cache][fault]") {
  // Newer SMs add .nv.info attributes and change the ELF ABI version; the
  // check must read them all.
  int checked = 0;
  for (int arch : nvrtc_supported_archs()) {
    CAPTURE(arch);
    const Entry e = compiled_entry(kernel_source(kName, kParams, kBody), kName, arch);
    CHECK(check_kernel_image(e, expect_for(kName, kSig, arch)) == "");
    ++checked;
  }
  CHECK(checked > 0);
}

TEST_CASE("kernel check: survives every truncation and random damage of a real image", "[cache][fault]") {
  // Run under AddressSanitizer, this shows every read is bounded.
  const int arch = test_arch();
  const Entry good = compiled_entry(kernel_source(kName, kParams, kBody), kName, arch);
  const KernelExpect x = expect_for(kName, kSig, arch);
  std::size_t rejected = 0, total = 0;
  for (std::size_t n = 0; n < good.cubin.size(); ++n, ++total)
    rejected += check_cubin(std::string_view(good.cubin).substr(0, n), x) != "";
  CHECK(rejected == total);  // no prefix is a whole image
  std::mt19937 rng(20261122);
  std::uniform_int_distribution<std::size_t> at(0, good.cubin.size() - 1);
  for (int k = 0; k < 5000; ++k) {
    std::string img = good.cubin;
    for (int flips = 1 + k % 4; flips > 0; --flips) img[at(rng)] = static_cast<char>(rng());
    (void)check_cubin(img, x);  // any answer, but no crash and no read outside `img`
  }
}

TEST_CASE("kernel check: each kind of damage is named", "[cache][fault]") {
  const int arch = test_arch();
  const Entry good = compiled_entry(kernel_source(kName, kParams, kBody), kName, arch);
  const KernelExpect x = expect_for(kName, kSig, arch);
  REQUIRE(check_kernel_image(good, x) == "");
  const std::string n = std::to_string(good.cubin.size());
  // Not a structured binding: clang 14 (the sanitizer build) cannot capture one in a lambda.
  const std::pair<std::size_t, std::size_t> text = section_of(good.cubin, ".text." + kName);
  const std::size_t text_at = text.first, text_size = text.second;
  REQUIRE(text_size > 0);

  struct Row {
    const char* what;
    std::function<Entry(Entry)> damage;
    std::string problem;
  };
  const std::vector<Row> rows = {
      {"cubin and PTX swapped", [](Entry e) { std::swap(e.cubin, e.ptx); return e; },
       "cubin: not an ELF image (" + std::to_string(good.ptx.size()) + " bytes)"},
      {"cubin zeroed", [](Entry e) { std::fill(e.cubin.begin(), e.cubin.end(), '\0'); return e; },
       "cubin: not an ELF image (" + n + " bytes)"},
      {"code zeroed",
       [&](Entry e) { std::fill_n(e.cubin.begin() + static_cast<long>(text_at), text_size, '\0'); return e; },
       "cubin: the code of " + kName + " is all zero bytes"},
      {"empty cubin", [](Entry e) { e.cubin.clear(); return e; }, "cubin: not an ELF image (0 bytes)"},
      {"host ELF", [](Entry e) { e.cubin[18] = 62; e.cubin[19] = 0; return e; },
       "cubin: ELF image for machine 62, not CUDA (190)"},
      {"32-bit ELF", [](Entry e) { e.cubin[4] = 1; return e; }, "cubin: not a 64-bit little-endian ELF image"},
      {"section table outside", [](Entry e) { e.cubin[0x28 + 5] = 0x7f; return e; }, "cubin: corrupt section table"},
      {"truncated cubin", [](Entry e) { e.cubin.resize(e.cubin.size() / 2); return e; },
       ""},  // one of the structural errors; the exact one depends on the layout
      {"PTX without the entry", [](Entry e) {
         for (std::size_t at; (at = e.ptx.find(".entry ")) != std::string::npos;) e.ptx.replace(at, 7, ".func  ");
         return e;
       },
       "PTX: declares no kernel " + kName},
  };
  for (const Row& r : rows) {
    CAPTURE(r.what);
    std::string problem = check_kernel_image(r.damage(good), x);
    if (r.problem.empty()) CHECK(problem.rfind("cubin: ", 0) == 0);
    else CHECK(problem == r.problem);
  }

  // Another kernel, other parameters, another SM.
  const Entry other_name = compiled_entry(kernel_source("cujit_other", kParams, kBody), "cujit_other", arch);
  CHECK(check_kernel_image(other_name, x) == "cubin: defines no kernel " + kName);
  const Entry fewer = compiled_entry(kernel_source(kName, "float* y, long long n", "if (n) y[0] = 1;"), kName, arch);
  CHECK(check_kernel_image(fewer, x) == "cubin: " + kName + " takes 2 parameters, expected 3");
  const Entry narrower =
      compiled_entry(kernel_source(kName, "float* y, const float* x, int n", "if (n) y[0] = x[0];"), kName, arch);
  CHECK(check_kernel_image(narrower, x) ==
        "cubin: parameter 2 of " + kName + " is 4 bytes at offset 16, expected 8 bytes at offset 16");
  const std::vector<int>& archs = nvrtc_supported_archs();
  int older = archs.front() == arch ? archs.back() : archs.front();
  const Entry other_sm = compiled_entry(kernel_source(kName, kParams, kBody), kName, older);
  CHECK(check_kernel_image(other_sm, x) == fmt::format("cubin: for sm_{}, expected sm_{}", older, arch));
  // A device function of that name is no kernel.
  const Entry device_fn = compiled_entry(
      "extern \"C\" __device__ __noinline__ void " + kName + "(float* y) { *y = 1; }\n"
      "extern \"C\" __global__ void k(float* y) { " + kName + "(y); }\n", "k", arch);
  std::string p = check_kernel_image(device_fn, x);
  CHECK((p == "cubin: " + kName + " is not a kernel entry point" || p == "cubin: defines no kernel " + kName));
}

// ---- Damaged entries through the cache: each one a warned miss, recompiled ----------

TEST_CASE("cache fault: entries with a valid checksum but the wrong kernel are recompiled", "[cache][fault]") {
  const int arch = test_arch();
  CompileOptions co;
  co.arch = arch;
  const std::string source = kernel_source(kName, kParams, kBody);
  const Entry good = compiled_entry(source, kName, arch);
  const KernelExpect x = expect_for(kName, kSig, arch);
  // Not a structured binding: clang 14 (the sanitizer build) cannot capture one in a lambda.
  const std::pair<std::size_t, std::size_t> text = section_of(good.cubin, ".text." + kName);
  const std::size_t text_at = text.first, text_size = text.second;
  const std::string target = fmt::format("sm_{}", arch);

  struct Row {
    const char* what;
    std::function<std::string(const Key&)> bytes;  // the whole damaged file, checksum recomputed
    std::string problem;
  };
  auto with = [](Entry e, const Key& k) { return encode_entry(k, e, false); };
  const std::vector<Row> rows = {
      // The header's cubin and PTX lengths swapped: the payload is read back
      // split at the other place, and the checksum recomputed over that.
      {"lengths swapped",
       [&](const Key& k) {
         std::string payload = good.cubin + good.ptx;
         return with(Entry{target, payload.substr(0, good.ptx.size()), payload.substr(good.ptx.size()), ""}, k);
       },
       // The PTX is shorter: the "cubin" is the image's head, its section table cut off.
       good.ptx.size() < good.cubin.size() ? "cubin: corrupt section table"
                                           : "cubin: not an ELF image (" + std::to_string(good.ptx.size()) + " bytes)"},
      {"code zeroed",
       [&](const Key& k) {
         Entry e = good;
         std::fill_n(e.cubin.begin() + static_cast<long>(text_at), text_size, '\0');
         return with(e, k);
       },
       "cubin: the code of " + kName + " is all zero bytes"},
      {"not ELF", [&](const Key& k) { return with(Entry{target, std::string(4096, 'A'), good.ptx, ""}, k); },
       "cubin: not an ELF image (4096 bytes)"},
      {"another kernel",
       [&](const Key& k) { return with(compiled_entry(kernel_source("evil", kParams, kBody), "evil", arch), k); },
       "cubin: defines no kernel " + kName},
      {"other parameters",
       [&](const Key& k) {
         return with(compiled_entry(kernel_source(kName, "float* y, long long n", "if (n) y[0] = 1;"), kName, arch), k);
       },
       "cubin: " + kName + " takes 2 parameters, expected 3"},
      {"PTX of another kernel",
       [&](const Key& k) {
         Entry e = good;
         e.ptx = compiled_entry(kernel_source("evil", kParams, kBody), "evil", arch).ptx;
         return with(e, k);
       },
       "PTX: declares no kernel " + kName},
  };
  int rejected = 0;
  for (const Row& r : rows) {
    CAPTURE(r.what);
    TempDir tmp;
    const std::string dir = tmp / "cache";
    Warnings setup;
    KernelCache first(config_for(dir, setup));
    bool compiled = false;
    compile_through_cache(source, kName, co, &compiled, {}, &kSig, &first);
    REQUIRE(compiled);
    const Key key = make_key(source, options_string(co), target, nvrtc_version());
    const std::string path = first.entry_path(key);
    REQUIRE(is_regular(path));
    write_bytes(path, r.bytes(key));
    REQUIRE(decode_entry(read_all(path), key, target).value);  // the checksum is right

    Warnings w;
    KernelCache second(config_for(dir, w));
    compiled = false;
    auto e = compile_through_cache(source, kName, co, &compiled, {}, &kSig, &second);
    CHECK(compiled);
    CHECK(check_kernel_image(*e, x) == "");
    CHECK(w.lines == std::vector<std::string>{warning_for(path, r.problem)});
    CHECK(second.counters().disk_bad == 1);
    rejected += second.counters().disk_bad == 1;

    // Replaced by a good entry that the next process reads silently.
    Warnings w3;
    KernelCache third(config_for(dir, w3));
    compiled = false;
    auto again = compile_through_cache(source, kName, co, &compiled, {}, &kSig, &third);
    CHECK_FALSE(compiled);
    CHECK(again->cubin == good.cubin);
    CHECK(w3.lines.empty());
  }
  CHECK(rejected == static_cast<int>(rows.size()));
}

TEST_CASE("cache fault: NVRTC failing gives a clear error and stores nothing", "[cache][fault]") {
  const int arch = test_arch();
  TempDir tmp;
  const std::string dir = tmp / "cache";
  Warnings w;
  KernelCache kc(config_for(dir, w));
  auto error_of = [&](const std::string& source, const CompileOptions& co) {
    try {
      compile_through_cache(source, kName, co, nullptr, {}, &kSig, &kc);
    } catch (const Error& e) {
      return std::pair<ErrorCode, std::string>(e.code(), e.what());
    }
    FAIL("no error");
    return std::pair<ErrorCode, std::string>();
  };
  CompileOptions bad_option;
  bad_option.arch = arch;
  bad_option.extra = {"--no-such-nvrtc-option"};
  auto [code, what] = error_of(kernel_source(kName, kParams, kBody), bad_option);
  CHECK(code == ErrorCode::Internal);
  CHECK(what.rfind("internal error: the generated CUDA source of '" + kName +
                       "' failed to compile (NVRTC_ERROR_INVALID_OPTION)\n",
                   0) == 0);
  CHECK(what.find("--no-such-nvrtc-option") != std::string::npos);

  CompileOptions co;
  co.arch = arch;
  auto [code2, what2] = error_of(kernel_source(kName, kParams, "#error planted failure\n"), co);
  CHECK(code2 == ErrorCode::Internal);
  CHECK(what2.find("planted failure") != std::string::npos);
  CHECK(what2.find("NVRTC log:") != std::string::npos);

  CHECK(kc.counters().compile_failures == 2);
  CHECK(kc.counters().disk_writes == 0);
  CHECK(kc.list().empty());
  CHECK(w.lines.empty());
}

// ---- Trust -------------------------------------------------------------------------------

namespace {

std::string refusal(const std::string& dir, const std::string& why) {
  return "cujit: warning: not using the kernel cache in " + dir + ": " + why + "; caching in memory only";
}

// Plants an entry for kKey in `dir`, as another user would, then checks that
// a cache on `dir` neither reads it nor writes anything, and says `why` once.
void check_refused(const std::string& dir, const std::string& why) {
  const std::string hex = kKey.hex(), shard = dir + "/" + hex.substr(0, 2), planted = shard + "/" + hex;
  ::mkdir(shard.c_str(), 0700);
  write_bytes(planted, encode_entry(kKey, fake("planted"), false));
  const std::vector<std::string> before = names_in(shard);
  Warnings w;
  KernelCache c(config_for(dir, w));
  for (int round = 0; round < 2; ++round) {
    CHECK(c.get_or_compile(kKey, "sm_90", [] { return fake("mine"); })->cubin == "CUBIN<mine>");
    CHECK(c.get_or_compile(make_key("k2", "", "sm_90", 1), "sm_90", [] { return fake("k2"); })->cubin == "CUBIN<k2>");
  }
  CHECK(w.lines == std::vector<std::string>{refusal(dir, why)});
  CHECK_FALSE(c.disk_writable());
  CHECK_FALSE(c.disk_trusted());
  CHECK(c.counters().compiles == 2);
  CHECK(c.counters().disk_hits == 0);
  CHECK(c.counters().disk_writes == 0);
  CHECK(names_in(shard) == before);
  CHECK(names_in(dir).size() == 1);
  CHECK(c.list().empty());  // maintenance does not touch it either
}

// Whether this process can give a folder to uid 65534 (nobody), someone else:
// root only, and not in every container.
bool can_chown() {
  if (::geteuid() != 0) return false;
  TempDir t;
  return ::chown(t.path().c_str(), 65534, 65534) == 0;
}

}  // namespace

TEST_CASE("trust: a new cache folder is made 0700 and used", "[cache][fault]") {
  TempDir tmp;
  Warnings w;
  KernelCache c(config_for(tmp / "a/b/cache", w));
  c.get_or_compile(kKey, "sm_90", [] { return fake("x"); });
  for (const std::string& d : {tmp / "a", tmp / "a/b", tmp / "a/b/cache"}) {
    struct stat st;
    REQUIRE(::stat(d.c_str(), &st) == 0);
    CHECK((st.st_mode & 07777) == 0700);
  }
  CHECK(c.counters().disk_writes == 1);
  CHECK(w.lines.empty());
}

TEST_CASE("trust: a cache folder writable by group or others is refused", "[cache][fault]") {
  for (mode_t mode : {0777, 0702, 0755 | S_ISVTX | 0002, 0770, 0720}) {
    CAPTURE(mode);
    const bool group_only = !(mode & S_IWOTH);
    if (group_only && !can_chown()) {
      WARN("skipping mode " << fmt::format("{:04o}", static_cast<unsigned>(mode))
                            << ": giving the folder to a shared group needs root");
      continue;
    }
    TempDir tmp;
    const std::string dir = tmp / "cache";
    REQUIRE(::mkdir(dir.c_str(), 0700) == 0);
    REQUIRE(::chmod(dir.c_str(), mode) == 0);
    if (group_only) REQUIRE(::chown(dir.c_str(), static_cast<uid_t>(-1), 65534) == 0);  // nogroup: shared
    check_refused(dir, fmt::format("it is writable by group or others (mode {:04o}); chmod go-w {} fixes that",
                                   static_cast<unsigned>(mode), dir));
  }
  // Readable by others is fine (the user's choice); writable is not.
  TempDir tmp;
  const std::string dir = tmp / "cache";
  REQUIRE(::mkdir(dir.c_str(), 0755) == 0);
  REQUIRE(::chmod(dir.c_str(), 0755) == 0);
  Warnings w;
  KernelCache c(config_for(dir, w));
  c.get_or_compile(kKey, "sm_90", [] { return fake("x"); });
  CHECK(c.counters().disk_writes == 1);
  CHECK(w.lines.empty());
}

namespace {

// Whether our primary group is ours alone (user private groups, umask 002).
bool own_private_group() {
  passwd* pw = ::getpwuid(::geteuid());
  group* gr = pw ? ::getgrgid(pw->pw_gid) : nullptr;
  if (!gr || pw->pw_gid != ::getegid()) return false;
  for (char** m = gr->gr_mem; m && *m; ++m)
    if (std::string(*m) != pw->pw_name) return false;
  return true;
}

}  // namespace

TEST_CASE("trust: writable by the user's private group is writable by the user alone", "[cache][fault]") {
  if (!own_private_group()) {
    WARN("skipping: this user's primary group is shared");
    return;
  }
  TempDir tmp;
  const std::string dir = tmp / "cache";
  REQUIRE(::mkdir(dir.c_str(), 0700) == 0);
  REQUIRE(::chmod(dir.c_str(), 0770) == 0);  // as mkdir makes it under umask 002
  Warnings w;
  KernelCache c(config_for(dir, w));
  c.get_or_compile(kKey, "sm_90", [] { return fake("x"); });
  CHECK(c.disk_trusted());
  CHECK(c.counters().disk_writes == 1);
  CHECK(w.lines.empty());
}

TEST_CASE("trust: a parent others can write is refused unless sticky", "[cache][fault]") {
  TempDir tmp;
  const std::string parent = tmp / "shared", dir = parent + "/cache";
  REQUIRE(::mkdir(parent.c_str(), 0700) == 0);
  REQUIRE(::mkdir(dir.c_str(), 0700) == 0);
  REQUIRE(::chmod(parent.c_str(), 0777) == 0);
  check_refused(dir, "its parent " + parent + " is writable by group or others without the sticky bit (mode 0777)");

  // Sticky, as /tmp: others cannot rename or remove what is not theirs.
  REQUIRE(::chmod(parent.c_str(), 01777) == 0);
  Warnings w;
  KernelCache c(config_for(dir, w));
  auto e = c.get_or_compile(kKey, "sm_90", []() -> Entry { throw std::logic_error("must read the disk"); });
  CHECK(e->cubin == "CUBIN<planted>");  // the folder is the user's own: what is in it is theirs
  CHECK(c.disk_trusted());
  CHECK(w.lines.empty());
}

TEST_CASE("trust: a folder or parent owned by someone else is refused", "[cache][fault]") {
  // The rule itself, for any user: compare with a uid that is not ours.
  {
    TempDir tmp;
    int fd = ::open(tmp.path().c_str(), O_RDONLY | O_DIRECTORY);
    REQUIRE(fd >= 0);
    const uid_t me = ::geteuid(), other = me + 1;
    CHECK(untrusted_reason(tmp.path(), fd, me) == "");
    CHECK(untrusted_reason(tmp.path(), fd, other) ==
          fmt::format("it belongs to uid {}, not to you (uid {}); use a folder of your own (CUJIT_CACHE_DIR)", me,
                      other));
    ::close(fd);
  }
  if (!can_chown()) {
    WARN("skipping the chown cases: this process cannot give a folder to another user (not root)");
    return;
  }
  {
    TempDir tmp;
    const std::string dir = tmp / "cache";
    REQUIRE(::mkdir(dir.c_str(), 0700) == 0);
    REQUIRE(::chown(dir.c_str(), 65534, 65534) == 0);
    check_refused(dir, fmt::format("it belongs to uid 65534, not to you (uid {}); use a folder of your own "
                                   "(CUJIT_CACHE_DIR)",
                                   ::geteuid()));
  }
  {
    TempDir tmp;
    const std::string parent = tmp / "theirs", dir = parent + "/cache";
    REQUIRE(::mkdir(parent.c_str(), 0755) == 0);
    REQUIRE(::mkdir(dir.c_str(), 0700) == 0);
    REQUIRE(::chown(parent.c_str(), 65534, 65534) == 0);
    check_refused(dir, fmt::format("its parent {} belongs to uid 65534, neither to you (uid {}) nor to root", parent,
                                   ::geteuid()));
  }
}

TEST_CASE("trust: a cache folder reached through a symbolic link is judged by what it points to", "[cache][fault]") {
  TempDir tmp;
  const std::string real = tmp / "real", link = tmp / "link";
  REQUIRE(::mkdir(real.c_str(), 0700) == 0);
  REQUIRE(::symlink(real.c_str(), link.c_str()) == 0);
  {
    Warnings w;
    KernelCache c(config_for(link, w));
    c.get_or_compile(kKey, "sm_90", [] { return fake("x"); });
    CHECK(w.lines.empty());
    CHECK(is_regular(real + "/" + kKey.hex().substr(0, 2) + "/" + kKey.hex()));
  }
  REQUIRE(::chmod(real.c_str(), 0777) == 0);
  Warnings w;
  KernelCache c(config_for(link, w));
  c.get_or_compile(kKey, "sm_90", [] { return fake("y"); });
  CHECK(w.lines == std::vector<std::string>{refusal(
                       link, "it is writable by group or others (mode 0777); chmod go-w " + real + " fixes that")});
}

// ---- Links and FIFOs below the folder: never followed, never blocking ---------------------

TEST_CASE("cache fault: a symbolic link as the entry is not followed", "[cache][fault]") {
  TempDir tmp;
  const std::string dir = tmp / "cache", outside = tmp / "outside";
  Warnings setup;
  KernelCache(config_for(dir, setup)).get_or_compile(kKey, "sm_90", [] { return fake("old"); });
  const std::string path = KernelCache(config_for(dir, setup)).entry_path(kKey);
  // A perfectly good entry for this key, outside the folder, linked in.
  const std::string planted = encode_entry(kKey, fake("planted"), false);
  write_bytes(outside, planted);
  REQUIRE(::unlink(path.c_str()) == 0);
  REQUIRE(::symlink(outside.c_str(), path.c_str()) == 0);

  Warnings w;
  KernelCache c(config_for(dir, w));
  CHECK(c.get_or_compile(kKey, "sm_90", [] { return fake("new"); })->cubin == "CUBIN<new>");
  CHECK(w.lines == std::vector<std::string>{warning_for(path, "unreadable (not a regular file)")});
  CHECK(is_regular(path));             // the link was replaced, not written through
  CHECK(read_all(outside) == planted);  // and its target left alone
}

TEST_CASE("cache fault: a symbolic link as the lock file is not followed", "[cache][fault]") {
  TempDir tmp;
  const std::string dir = tmp / "cache", missing = tmp / "created-through-link", precious = tmp / "precious";
  write_bytes(precious, "do not touch");
  REQUIRE(::mkdir(dir.c_str(), 0700) == 0);
  for (const std::string& target : {missing, precious}) {
    CAPTURE(target);
    Warnings w;
    KernelCache c(config_for(dir, w));
    const Key key = make_key(target, "", "sm_90", 1);
    const std::string lock = c.lock_path(key);
    ::mkdir(lock.substr(0, lock.rfind('/')).c_str(), 0700);
    REQUIRE(::symlink(target.c_str(), lock.c_str()) == 0);
    CHECK(c.get_or_compile(key, "sm_90", [] { return fake("x"); })->cubin == "CUBIN<x>");
    CHECK(c.counters().disk_writes == 1);
    CHECK(w.lines.empty());
    CHECK_FALSE(exists(lock));  // replaced by a real lock file, removed after the write
  }
  CHECK_FALSE(exists(missing));
  CHECK(read_all(precious) == "do not touch");
}

TEST_CASE("cache fault: a symbolic link as a shard folder is not followed", "[cache][fault]") {
  TempDir tmp;
  const std::string dir = tmp / "cache", outside = tmp / "outside";
  REQUIRE(::mkdir(dir.c_str(), 0700) == 0);
  REQUIRE(::mkdir(outside.c_str(), 0700) == 0);
  const std::string shard = dir + "/" + kKey.hex().substr(0, 2);
  write_bytes(outside + "/" + kKey.hex(), encode_entry(kKey, fake("planted"), false));
  REQUIRE(::symlink(outside.c_str(), shard.c_str()) == 0);

  Warnings w;
  KernelCache c(config_for(dir, w));
  CHECK(c.get_or_compile(kKey, "sm_90", [] { return fake("new"); })->cubin == "CUBIN<new>");
  CHECK(w.lines == std::vector<std::string>{
                       warning_for(c.entry_path(kKey), "unreadable (its shard folder is not a folder)")});
  struct stat st;
  REQUIRE(::lstat(shard.c_str(), &st) == 0);
  CHECK(S_ISDIR(st.st_mode));
  CHECK(is_regular(c.entry_path(kKey)));
  CHECK(names_in(outside) == std::vector<std::string>{kKey.hex()});  // nothing written there
  CHECK(c.list().size() == 1);
}

TEST_CASE("cache fault: FIFOs as entries and locks neither block nor get opened", "[cache][fault]") {
  TempDir tmp;
  const std::string dir = tmp / "cache";
  Warnings setup;
  KernelCache(config_for(dir, setup)).get_or_compile(kKey, "sm_90", [] { return fake("old"); });
  const std::string path = KernelCache(config_for(dir, setup)).entry_path(kKey);
  REQUIRE(::unlink(path.c_str()) == 0);
  REQUIRE(::mkfifo(path.c_str(), 0600) == 0);

  // Maintenance first: list and verify name it, verify --remove removes it.
  Warnings w;
  KernelCache c(config_for(dir, w));
  auto listed = c.list();
  REQUIRE(listed.size() == 1);
  CHECK(listed[0].problem == "unreadable (not a regular file)");
  auto verified = c.verify();
  REQUIRE(verified.size() == 1);
  CHECK(verified[0].problem == "unreadable (not a regular file)");
  CHECK(c.verify(/*remove_bad=*/true).size() == 1);
  CHECK_FALSE(exists(path));

  // A compile finds it, warns, and replaces it.
  REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
  CHECK(c.get_or_compile(kKey, "sm_90", [] { return fake("new"); })->cubin == "CUBIN<new>");
  CHECK(w.lines == std::vector<std::string>{warning_for(path, "unreadable (not a regular file)")});
  CHECK(is_regular(path));

  // A FIFO as a lock file is replaced by a real one.
  const Key k2 = make_key("fifo lock", "", "sm_90", 1);
  const std::string lock = c.lock_path(k2);
  ::mkdir(lock.substr(0, lock.rfind('/')).c_str(), 0700);
  REQUIRE(::mkfifo(lock.c_str(), 0600) == 0);
  CHECK(c.get_or_compile(k2, "sm_90", [] { return fake("k2"); })->cubin == "CUBIN<k2>");
  CHECK_FALSE(exists(lock));  // replaced by a real lock file, removed after the write
  CHECK(c.counters().disk_writes == 2);

  // clear removes the odd files too.
  REQUIRE(::unlink(path.c_str()) == 0);
  REQUIRE(::mkfifo(path.c_str(), 0600) == 0);
  c.clear();
  CHECK_FALSE(exists(path));
}

// ---- Read-only and full file systems ------------------------------------------------------

namespace {

// A small file system of its own: a tmpfs when this process may mount one,
// else an ext2 loop image; `why` says why neither worked.
struct SmallFs {
  std::string path, why;
  bool mounted = false;
  SmallFs(const TempDir& tmp, const std::string& size) : path(tmp / "fs") {
    ::mkdir(path.c_str(), 0700);
    if (::mount("cujit-test", path.c_str(), "tmpfs", 0, ("size=" + size + ",mode=0700").c_str()) == 0) {
      mounted = true;
      return;
    }
    why = std::string("tmpfs: ") + std::strerror(errno);
    const std::string img = tmp / "fs.img";
    const std::string cmd = "command -v mkfs.ext2 >/dev/null && mkfs.ext2 -q -F -m 0 '" + img + "' " + size +
                            " >/dev/null 2>&1 && mount -o loop '" + img + "' '" + path + "' 2>/dev/null";
    if (std::system(cmd.c_str()) == 0) {
      mounted = true;
      ::chmod(path.c_str(), 0700);
      return;
    }
    why += "; loop image: mkfs.ext2 or mount -o loop failed";
  }
  ~SmallFs() {
    if (mounted) ::umount2(path.c_str(), MNT_DETACH);
  }
  bool remount_read_only() {
    return ::mount(nullptr, path.c_str(), nullptr, MS_REMOUNT | MS_RDONLY, nullptr) == 0;
  }
};

}  // namespace

TEST_CASE("cache fault: a read-only file system: existing entries used, the rest in memory, one warning",
          "[cache][fault]") {
  TempDir tmp;
  SmallFs fs(tmp, "1m");
  if (!fs.mounted) {
    WARN("skipping: cannot mount a small file system (" << fs.why << "); the chmod-based read-only test in "
                                                           "test_cache.cpp covers unprivileged runs");
    return;
  }
  const std::string dir = fs.path + "/cache";
  Warnings setup;
  KernelCache(config_for(dir, setup)).get_or_compile(kKey, "sm_90", [] { return fake("present"); });
  REQUIRE(fs.remount_read_only());

  Warnings w;
  KernelCache c(config_for(dir, w));
  CHECK(c.get_or_compile(kKey, "sm_90", []() -> Entry { throw std::logic_error("must read"); })->cubin ==
        "CUBIN<present>");
  const Key k2 = make_key("second", "", "sm_90", 1);
  for (int round = 0; round < 2; ++round)
    CHECK(c.get_or_compile(k2, "sm_90", [] { return fake("two"); })->cubin == "CUBIN<two>");
  CHECK(w.lines == std::vector<std::string>{"cujit: warning: cannot write the kernel cache in " + dir +
                                            ": Read-only file system; caching in memory only"});
  CHECK(c.counters().compiles == 1);
  CHECK(c.counters().disk_hits == 1);
}

TEST_CASE("cache fault: a full file system: memory only, one warning, no debris", "[cache][fault]") {
  TempDir tmp;
  SmallFs fs(tmp, "256k");
  if (!fs.mounted) {
    WARN("skipping: cannot mount a small file system (" << fs.why << "); the RLIMIT_FSIZE test in test_cache.cpp "
                                                           "covers a write failing midway");
    return;
  }
  const std::string dir = fs.path + "/cache";
  REQUIRE(::mkdir(dir.c_str(), 0700) == 0);
  const Key k0 = make_key("fits", "", "sm_90", 1);
  Warnings setup;
  KernelCache(config_for(dir, setup)).get_or_compile(k0, "sm_90", [] { return fake("fits"); });
  REQUIRE(setup.lines.empty());
  // Fill what is left.
  {
    int fd = ::open((fs.path + "/filler").c_str(), O_WRONLY | O_CREAT, 0600);
    REQUIRE(fd >= 0);
    std::string block(4096, 'f');
    while (::write(fd, block.data(), block.size()) > 0) {
    }
    std::string byte(1, 'f');
    while (::write(fd, byte.data(), 1) > 0) {
    }
    ::close(fd);
  }
  Warnings w;
  KernelCache c(config_for(dir, w));
  const Entry big{"sm_90", std::string(64 * 1024, 'c'), "PTX", ""};
  for (int round = 0; round < 2; ++round) {
    CHECK(c.get_or_compile(kKey, "sm_90", [&] { return big; })->cubin == big.cubin);
    CHECK(c.get_or_compile(k0, "sm_90", []() -> Entry { throw std::logic_error("on disk"); })->cubin ==
          "CUBIN<fits>");
  }
  CHECK(w.lines == std::vector<std::string>{"cujit: warning: cannot write the kernel cache in " + dir +
                                            ": No space left on device; caching in memory only"});
  CHECK(c.counters().disk_write_failures == 1);
  CHECK(c.counters().compiles == 1);
  // No half-written temp file left behind: at most the lock.
  const std::string shard = dir + "/" + kKey.hex().substr(0, 2);
  for (const std::string& name : names_in(shard)) CHECK(name.find(".tmp.") == std::string::npos);
  CHECK_FALSE(exists(c.entry_path(kKey)));
}

#include "gpu/generate.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <complex>
#include <cstring>
#include <map>
#include <mutex>
#include <string>
#include <tuple>
#include <type_traits>

#include "cache/key.hpp"
#include "cpu/ops_host.hpp"
#include "cpu/thread_pool.hpp"
#include "fail.hpp"
#include "gpu/compile.hpp"
#include "gpu/driver.hpp"
#include "gpu/kernel_key.hpp"
#include "gpu/launch.hpp"
#include "gpu/templates.hpp"
#include "scalar.hpp"

// The generators' element functions, compiled for the host from the very text
// NVRTC compiles into the fill kernels (CMake builds this file with
// -ffp-contract=off, so no product fuses into an FMA here either).
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-function"
#include "random.cuh"
#pragma GCC diagnostic pop

namespace cujit {

namespace {

static_assert(sizeof(cj::gen::params) == 64, "the kernel parameter's layout is fixed");
static_assert(sizeof(cj::gen::c64) == sizeof(std::complex<float>) && sizeof(cj::gen::c128) == sizeof(std::complex<double>));

enum class Family { Rand, Randn, Ramp, Pattern };

Family family(GeneratorSpec::Kind k) {
  switch (k) {
    case GeneratorSpec::Rand: return Family::Rand;
    case GeneratorSpec::Randn: return Family::Randn;
    case GeneratorSpec::Arange: case GeneratorSpec::Linspace: return Family::Ramp;
    default: return Family::Pattern;
  }
}

const char* family_struct(Family f) {
  switch (f) {
    case Family::Rand: return "rand_";
    case Family::Randn: return "randn_";
    case Family::Ramp: return "ramp_";
    default: return "pattern_";
  }
}

// Calls f(T{}) with the element type random.cuh uses for a dtype, or, for
// the pattern generators, the unsigned type of the element's size.
template <class F> void visit_element(Family fam, DType t, F&& f) {
  if (fam == Family::Pattern) {
    switch (dtype_size(t)) {
      case 1: return f(cj_u8{});
      case 2: return f(cj_u16{});
      case 4: return f(cj_u32{});
      case 8: return f(cj_u64{});
      default: return f(cj::gen::u64x2{});
    }
  }
  switch (t) {
    case DType::Bool: return f(bool{});
    case DType::Int8: return f(cj_i8{});
    case DType::Int16: return f(cj_i16{});
    case DType::Int32: return f(cj_i32{});
    case DType::Int64: return f(cj_i64{});
    case DType::UInt8: return f(cj_u8{});
    case DType::UInt16: return f(cj_u16{});
    case DType::UInt32: return f(cj_u32{});
    case DType::UInt64: return f(cj_u64{});
    case DType::Float16: return f(cj::gen::h16{});
    case DType::BFloat16: return f(cj::gen::b16{});
    case DType::Float32: return f(float{});
    case DType::Float64: return f(double{});
    case DType::Complex64: return f(cj::gen::c64{});
    default: return f(cj::gen::c128{});
  }
}

// The same element type as the kernel source names it.
std::string element_type_name(Family fam, DType t) {
  if (fam == Family::Pattern) {
    switch (dtype_size(t)) {
      case 1: return "cj_u8";
      case 2: return "cj_u16";
      case 4: return "cj_u32";
      case 8: return "cj_u64";
      default: return "cj::gen::u64x2";
    }
  }
  switch (t) {
    case DType::Bool: return "bool";
    case DType::Int8: return "cj_i8";
    case DType::Int16: return "cj_i16";
    case DType::Int32: return "cj_i32";
    case DType::Int64: return "cj_i64";
    case DType::UInt8: return "cj_u8";
    case DType::UInt16: return "cj_u16";
    case DType::UInt32: return "cj_u32";
    case DType::UInt64: return "cj_u64";
    case DType::Float16: return "cj::gen::h16";
    case DType::BFloat16: return "cj::gen::b16";
    case DType::Float32: return "float";
    case DType::Float64: return "double";
    case DType::Complex64: return "cj::gen::c64";
    default: return "cj::gen::c128";
  }
}

// The kernel's arguments for a fill of n elements.
cj::gen::params make_params(const GeneratorSpec& spec, DType dtype, std::int64_t n) {
  if (spec.kind == GeneratorSpec::Randn && (is_integer(dtype) || is_bool(dtype)))
    fail(ErrorCode::Usage, "randn needs a float or complex dtype, got {}", dtype_name(dtype));
  cj::gen::params p{};
  p.n = static_cast<cj_u64>(n);
  p.seed = spec.seed;
  p.last = ~cj_u64{0};
  p.start = 0;
  p.step = 1;
  if (spec.kind == GeneratorSpec::Linspace) {
    // NumPy's linspace: start + k*step, with the last point exactly `stop`.
    p.start = spec.start;
    p.stop = spec.stop;
    p.step = n > 1 ? (spec.stop - spec.start) / static_cast<double>(n - 1) : 0.0;
    if (n > 1) p.last = static_cast<cj_u64>(n - 1);
  }
  if (family(spec.kind) == Family::Pattern) {
    const double v = spec.kind == GeneratorSpec::Ones ? 1.0 : spec.kind == GeneratorSpec::Full ? spec.value : 0.0;
    scalar::visit(dtype, [&](auto t) {
      auto e = scalar::cast<decltype(t)>(v);
      static_assert(sizeof e <= sizeof p.pattern);
      std::memcpy(p.pattern, &e, sizeof e);
    });
  }
  return p;
}

void check_contiguous(const ArrayView& out, Device::Kind where) {
  if (out.device.kind != where)
    fail(ErrorCode::Usage, "generate_{}: the array is in {} memory", where == Device::CPU ? "host" : "device",
         out.device.kind == Device::CPU ? "host" : "device");
  if (!out.is_c_contiguous()) fail(ErrorCode::Usage, "generators fill C-contiguous arrays only");
  if (out.size() > 0 && !out.data) fail(ErrorCode::Usage, "generators: a null array");
}

}  // namespace

const char* generator_name(GeneratorSpec::Kind k) {
  switch (k) {
    case GeneratorSpec::Zeros: return "zeros";
    case GeneratorSpec::Ones: return "ones";
    case GeneratorSpec::Full: return "full";
    case GeneratorSpec::Arange: return "arange";
    case GeneratorSpec::Linspace: return "linspace";
    case GeneratorSpec::Rand: return "rand";
    default: return "randn";
  }
}

void generate_host(const GeneratorSpec& spec, const ArrayView& out) {
  check_contiguous(out, Device::CPU);
  const std::int64_t n = out.size();
  const cj::gen::params p = make_params(spec, out.dtype, n);
  if (n == 0) return;
  const Family fam = family(spec.kind);
  // Blocks of 64Ki elements: each a task of the CPU evaluator's pool.
  constexpr std::int64_t kBlock = 1 << 16;
  visit_element(fam, out.dtype, [&](auto t) {
    using T = decltype(t);
    T* base = static_cast<T*>(out.data);
    auto run = [&](auto gen) {
      using G = decltype(gen);
      parallel_tasks((n + kBlock - 1) / kBlock, cpu_threads(), [&](int, std::int64_t task) {
        const std::int64_t b = task * kBlock, e = std::min(n, b + kBlock);
        for (std::int64_t k = b; k < e; ++k) base[k] = G::template at<T>(static_cast<cj_u64>(k), p);
      });
    };
    constexpr bool pattern_type = std::is_same_v<T, cj_u8> || std::is_same_v<T, cj_u16> || std::is_same_v<T, cj_u32> ||
                                  std::is_same_v<T, cj_u64> || std::is_same_v<T, cj::gen::u64x2>;
    if (fam == Family::Pattern) {
      if constexpr (pattern_type) run(cj::gen::pattern_{});
    } else if constexpr (!std::is_same_v<T, cj::gen::u64x2>) {
      if (fam == Family::Rand) run(cj::gen::rand_{});
      else if (fam == Family::Ramp) run(cj::gen::ramp_{});
      else if constexpr (!std::is_integral_v<T>) run(cj::gen::randn_{});  // ints and bool: refused by make_params
    }
  });
}

namespace {
std::string kernel_name(Family fam, DType dtype) {
  return fam == Family::Pattern ? fmt::format("cujit_gen_pattern{}", dtype_size(dtype) * 8)
                                : fmt::format("cujit_gen_{}{}", family_struct(fam), dtype_name(dtype));
}
}  // namespace

std::string generator_source(GeneratorSpec::Kind kind, DType dtype) {
  const Family fam = family(kind);
  std::string type = element_type_name(fam, dtype);
  std::string name = kernel_name(fam, dtype);
  std::string what = fam == Family::Pattern ? fmt::format("full, ones, zeros of {}-byte elements", dtype_size(dtype))
                     : fam == Family::Ramp  ? fmt::format("arange, linspace of {}", dtype_name(dtype))
                                            : fmt::format("{} of {}", generator_name(kind), dtype_name(dtype));
  return render_template(template_text("generate.cu"),
                         {{"KERNEL_NAME", name},
                          {"WHAT", what},
                          {"HEADER", template_text("prelude.cuh") + "\n" + template_text("random.cuh")},
                          {"TYPE", type},
                          {"GENERATOR", family_struct(fam)}});
}

void generate_device(const GeneratorSpec& spec, const ArrayView& out, CUstream stream) {
  check_contiguous(out, Device::CUDA);
  const std::int64_t n = out.size();
  const int device = out.device.id;
  cj::gen::params p = make_params(spec, out.dtype, n);
  if (n == 0) return;
  const DeviceInfo& info = device_info(device);
  const Family fam = family(spec.kind);

  // The kernel per (device, family, element): compiled through the kernel
  // cache once, loaded once per device, kept for the process's life.
  struct Loaded {
    CUfunction fn = nullptr;
    int block = 256;
  };
  static std::mutex mu;
  static std::map<std::tuple<int, int, std::string>, Loaded>* loaded = new std::map<std::tuple<int, int, std::string>, Loaded>;
  const std::string type = element_type_name(fam, out.dtype);
  const auto key = std::make_tuple(device, static_cast<int>(fam), type);
  Loaded l;
  {
    std::lock_guard<std::mutex> lock(mu);
    auto it = loaded->find(key);
    if (it != loaded->end()) l = it->second;
  }
  if (!l.fn) {
    const std::string source = generator_source(spec.kind, out.dtype);
    const std::string name = kernel_name(fam, out.dtype);
    CompileOptions co;
    co.arch = cap_arch(info.arch());
    auto entry = compile_through_cache(source, name, co);
    l.fn = get_function(device, kernel_cache_key(source, co).hex(), select_image(entry_images(*entry, co.arch), info.arch()),
                        name.c_str());
    l.block = std::min(256, max_potential_block_size(device, l.fn));
    std::lock_guard<std::mutex> lock(mu);
    (*loaded)[key] = l;
  }
  // A grid-stride loop over enough blocks to fill the GPU several times over.
  const std::int64_t blocks = (n + l.block - 1) / l.block;
  const unsigned grid = static_cast<unsigned>(std::max<std::int64_t>(1, std::min<std::int64_t>(blocks, std::int64_t{info.sm_count} * 32)));
  CUdeviceptr ptr = reinterpret_cast<CUdeviceptr>(out.data);
  void* args[] = {&ptr, &p};
  launch(device, l.fn, grid, static_cast<unsigned>(l.block), args, stream);
  if (!stream) synchronize(device, nullptr);
}

}  // namespace cujit

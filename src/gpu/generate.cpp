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
#include "core/fail.hpp"
#include "gpu/compile.hpp"
#include "core/driver.hpp"
#include "gpu/kernel_key.hpp"
#include "gpu/launch.hpp"
#include "gpu/templates.hpp"

namespace cujit {

using namespace gen;

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

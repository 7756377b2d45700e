#include "cpu/generate_host.hpp"

#include <algorithm>
#include <type_traits>

#include "cpu/thread_pool.hpp"

namespace cujit {

using namespace gen;

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
        for (std::int64_t k = b; k < e; ++k) base[k] = G::template at<T>(p.first + static_cast<cj_u64>(k), p);
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

}  // namespace cujit

#include "api/programs.hpp"

#include <chrono>
#include <mutex>
#include <set>
#include <shared_mutex>
#include <unordered_map>

#include "gpu/kernel_key.hpp"
#include "lang/parse.hpp"

namespace cujit {

namespace {

struct ProgramCache {
  std::shared_mutex mu;
  std::unordered_map<cache::Key, std::shared_ptr<const GpuProgram>, cache::KeyHash> programs;
};
ProgramCache& program_cache() {
  static ProgramCache* c = new ProgramCache;  // never destroyed: usable from static destructors
  return *c;
}
constexpr std::size_t kMaxPrograms = 4096;

// Everything of a request that changes the checked program or its kernels
// beyond program_key's own fields.
std::string checking_of(const ProgramRequest& r) {
  // Appended in place into one reserved string: it is built on every call,
  // a cached one too, where each `+` made a temporary string.
  std::string s;
  s.reserve(96);
  s += r.mode == Outputs::Exact ? "exact" : "infer";
  if (r.infer_raw) s += ";infer_raw";
  if (r.make) s += ";made";
  s += ";arch=";
  s += std::to_string(r.gpu.arch);
  s += ";vec=";
  s += std::to_string(r.gpu.max_vector);
  if (r.gpu.force_index64) s += ";index64";
  for (const auto& [name, t] : r.placeholders) s += ";" + name + "=" + std::string(dtype_name(t));
  for (const std::string& o : r.gpu.nvrtc_options) s += ";opt=" + o;
  s += ";recipe=";
  s += r.gpu.recipe;
  return s;
}

Program make_program(const ProgramRequest& r) {
  if (r.make) return r.make();
  Ast ast = parse(r.source, r.placeholders);
  std::vector<Param> params = r.params;
  if (r.infer_raw) {
    const std::set<std::string> raw = indexed_names(ast);
    for (Param& q : params) q.raw = raw.count(q.name) > 0;
  }
  return check(std::move(ast), params, r.outputs, r.mode);
}

}  // namespace

std::shared_ptr<const GpuProgram> checked_program(const ProgramRequest& r, double* check_ms) {
  if (check_ms) *check_ms = 0;
  std::vector<Param> signature = r.params;
  if (r.infer_raw)
    for (Param& q : signature) q.raw = false;  // a function of the text, which the key holds
  const cache::Key key = program_key(r.source, signature, r.outputs, r.gpu.kernel_name, r.gpu.render_id,
                                     static_cast<bool>(r.gpu.render), r.gpu.fast_math, checking_of(r));
  ProgramCache& cache = program_cache();
  {
    std::shared_lock<std::shared_mutex> lock(cache.mu);
    auto it = cache.programs.find(key);
    if (it != cache.programs.end()) return it->second;
  }
  auto t0 = std::chrono::steady_clock::now();
  auto program = std::make_shared<Program>(make_program(r));
  if (check_ms) *check_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  auto gpu = std::make_shared<const GpuProgram>(std::move(program), r.gpu);
  std::unique_lock<std::shared_mutex> lock(cache.mu);
  if (cache.programs.size() >= kMaxPrograms) cache.programs.clear();
  auto& slot = cache.programs[key];
  if (!slot) slot = gpu;
  return slot;
}

}  // namespace cujit

#include "gpu/kernel_key.hpp"

#include <cstdint>

namespace cujit {

KernelKey::Compile KernelKey::compile_inputs(const CompileOptions& co) {
  return Compile{"sm_" + std::to_string(cap_arch(co.arch)), options_string(co), nvrtc_version()};
}

cache::Key KernelKey::disk_key(const Compile& c, std::string_view source) {
  return cache::make_key(source, c.options, c.target, c.nvrtc);
}

cache::Key program_key(std::string_view source, const std::vector<Param>& inputs,
                       const std::vector<OutputDecl>& outputs, std::string_view kernel_name,
                       std::string_view render_id, bool render, bool fast_math,
                       std::string_view checking) {
  cache::KeyBuilder b;
  b.add("cujit.program.1").add(source).add(kernel_name).add(render_id);
  if (!checking.empty()) b.add(checking);
  b.add(static_cast<std::uint64_t>((render ? 1u : 0u) | (fast_math ? 2u : 0u)));
  b.add(static_cast<std::uint64_t>(inputs.size()));
  for (const Param& q : inputs)
    b.add(q.name).add(static_cast<std::uint64_t>(q.dtype) | (q.weak ? 0x100u : 0u) | (q.raw ? 0x200u : 0u));
  b.add(static_cast<std::uint64_t>(outputs.size()));
  for (const OutputDecl& d : outputs) b.add(d.name).add(d.dtype ? static_cast<std::uint64_t>(*d.dtype) : ~std::uint64_t{0});
  return b.finish();
}

KernelKey::KernelKey(const cache::Key& program, const KernelLayout& layout, const CompileOptions& co)
    : compile_(compile_inputs(co)) {
  cache::KeyBuilder b;
  b.add("cujit.kernel.memory.1").add(program.hi).add(program.lo).add(layout.key_string());
  b.add(compile_.target).add(compile_.options).add(static_cast<std::uint64_t>(compile_.nvrtc));
  memory_ = b.finish();
}

cache::Key KernelKey::disk(std::string_view source) const { return disk_key(compile_, source); }

cache::Key kernel_cache_key(std::string_view source, const CompileOptions& co) {
  return KernelKey::disk_key(KernelKey::compile_inputs(co), source);
}

}  // namespace cujit

// The cache keys of a compiled kernel, built in one place. A kernel is named
// twice: in memory by what its caller asked for (the program as given, the
// layout, how it is compiled), so that a repeated request renders no source;
// on disk by the rendered source and how it is compiled, so that processes
// (and programs) producing the same kernel meet on one entry. Both keys hash
// the same compile inputs (target, options string, NVRTC version), taken from
// one CompileOptions here, so the two can never disagree about them.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "cache/key.hpp"
#include "gpu/compile.hpp"
#include "plan/layout.hpp"
#include "lang/check.hpp"

namespace cujit {

// A program as a caller names it, before or after it is checked: its text,
// its parameters (name, dtype, weak, raw), its outputs (name and dtype, or
// none where the program decides), and what turns it into a kernel (the
// kernel's name; a raw-CUDA renderer, named by render_id; fast math; how the
// text is checked and compiled, `checking`). The one program cache
// (api/programs.hpp) keys by it, and the memory key starts from it.
cache::Key program_key(std::string_view source, const std::vector<Param>& inputs,
                       const std::vector<OutputDecl>& outputs, std::string_view kernel_name,
                       std::string_view render_id = {}, bool render = false, bool fast_math = false,
                       std::string_view checking = {});

class KernelKey {
 public:
  KernelKey(const cache::Key& program, const KernelLayout& layout, const CompileOptions& co);
  // The memory cache's key: program_key, layout and compile inputs; no source needed.
  const cache::Key& memory() const { return memory_; }
  // The disk cache's key: the source rendered for the layout, and the same compile inputs.
  cache::Key disk(std::string_view source) const;

  // What both keys hash of the compile: the target (after cap_arch), the
  // options string and NVRTC's version.
  struct Compile {
    std::string target, options;
    int nvrtc = 0;
  };
  static Compile compile_inputs(const CompileOptions& co);
  static cache::Key disk_key(const Compile& c, std::string_view source);

 private:
  Compile compile_;
  cache::Key memory_;
};

// The disk key of a kernel whose source is at hand (KernelKey::disk without a
// program: precompile, jitcache, compile_through_cache).
cache::Key kernel_cache_key(std::string_view source, const CompileOptions& co);

}  // namespace cujit

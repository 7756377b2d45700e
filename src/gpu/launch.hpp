// launch: runs a checked Program on a CUDA device.
//
//   GpuProgram g(program, options);
//   g.launch(device, inputs, outputs, stream);   // thread-safe, any number of times
//
// The first call with a new "call shape" (the dtypes, shapes, strides, devices
// and pointer alignments of the operands) plans it: plan_launch chooses the
// KernelLayout, the program+layout key is looked up in the memory cache
// before any source is rendered, and on a miss the source is generated,
// compiled (or read from the disk cache) and the module loaded on the device.
// What that produces (the function, grid, block, packed layout argument) is
// kept in the GpuProgram under a fingerprint of the call shape. Every later
// call with that shape takes the hot path: build the fingerprint on the stack,
// one shared-lock lookup, marshal the argument pointers, cuLaunchKernel. No
// source text is hashed, no string is built and nothing is allocated there.
#pragma once
#include <cuda.h>

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "gpu/codegen.hpp"
#include "gpu/compile.hpp"
#include "core/compiled_kernel.hpp"
#include "cache/entry.hpp"
#include "cujit/array.hpp"

namespace cujit::cache {
class KernelCache;
}

namespace cujit {

struct Program;

// The kernel symbol of a program that names none (evaluate(), the multi-GPU split).
inline constexpr const char* kDefaultKernelName = "cujit_kernel";

struct GpuOptions {
  int arch = 0;            // compile for sm_<arch> (capped to what NVRTC supports); 0: each device's own
  bool fast_math = false;  // --use_fast_math: looser accuracy than the contract's
  std::vector<std::string> nvrtc_options;  // passed to NVRTC after cujit's own
  // Most elements a thread moves per vector step; plan_launch also keeps a
  // step within 16 bytes of the widest operand, so 16 means "16-byte vectors".
  int max_vector = kDefaultMaxVector;
  bool force_index64 = false;  // test hook: 64-bit index arithmetic where 32 bits would do
  std::string kernel_name = kDefaultKernelName;  // a C identifier, not starting with cj_
  // Raw CUDA mode: renders the kernel for a layout instead of generate_source.
  // It must follow kernel_signature(program, layout). Its compile errors are
  // the user's (ErrorCode::Program). `render_id` names everything the
  // renderer adds to the program (the operation, the preamble) for the cache key.
  std::function<std::string(const Program&, const KernelLayout&, const std::string& kernel_name)> render;
  std::string render_id;
  // How to make this program again, as precompile-manifest fields (name,
  // operation or program, dtypes; see src/api/manifest.hpp), for record mode and
  // the recipe kept with cache entries. Empty: derived from the Program
  // (a jitrun-style program with its input dtypes and declared outputs).
  std::string recipe;
};

// What one launch did, for `jitrun -v` and tests. Times in milliseconds.
struct LaunchStats {
  // Prepared: the call shape was seen before (the hot path); Memory: the
  // program+layout was in the memory cache; Disk: its source was rendered and
  // the kernel read from the disk cache; Compiled: NVRTC compiled it.
  enum class Kernel { Prepared, Memory, Disk, Compiled } kernel = Kernel::Prepared;
  double plan_ms = 0, codegen_ms = 0, compile_ms = 0, load_ms = 0, launch_ms = 0;
  std::string layout;  // KernelLayout::key_string() (empty on the hot path)
  unsigned grid = 0, block = 0;
  unsigned grid_y = 1, grid_z = 1, block_y = 1;  // Rows and Tiles layouts: 2-D blocks, 2-D or 3-D grids
  std::int64_t n = 0;
};
const char* kernel_source_name(LaunchStats::Kernel k);  // "prepared", "memory cache", ...

class GpuProgram {
 public:
  explicit GpuProgram(std::shared_ptr<const Program> program, GpuOptions options = {});
  ~GpuProgram();
  GpuProgram(const GpuProgram&) = delete;
  GpuProgram& operator=(const GpuProgram&) = delete;

  // Runs the program on CUDA device `device`, queued on `stream` (nullptr: the
  // legacy default stream). One view per Program::inputs and per
  // Program::outputs, in program order:
  //  - a weak input: a host 0-d view of its dtype (int64, float64, complex128);
  //  - any other input: a view on `device`, or a host 0-d view (a typed
  //    scalar, passed by value);
  //  - an output: a view on `device` of the broadcast shape and the program's dtype.
  // Every error (devices, dtypes, shapes, outputs overlapping inputs other than
  // element for element) is thrown before anything is queued. Programs that
  // can fail at run time (raw indexing, weak integers that must fit) wait for
  // the kernel and throw ErrorCode::Data with the CPU evaluator's message.
  // Returns without a launch when there are no elements.
  void launch(int device, const ArrayView* inputs, const ArrayView* outputs, CUstream stream = nullptr,
              LaunchStats* stats = nullptr) const;
  void launch(int device, const std::vector<ArrayView>& inputs, const std::vector<ArrayView>& outputs,
              CUstream stream = nullptr, LaunchStats* stats = nullptr) const;

  const Program& program() const;
  const GpuOptions& options() const;
  // The kernel source the program gets for a layout (what launch compiles).
  std::string source(const KernelLayout& layout) const;

  // Ahead of time, with no GPU: plan() is the layout launch() chooses for
  // operands like these (plan_launch with this program's options: the one
  // planning function), and compile() puts the kernel for a layout and
  // sm_<arch> into the kernel cache exactly as a launch would look it up.
  // `compiled` tells whether NVRTC ran (false: memory or disk cache hit).
  KernelLayout plan(const std::vector<OperandView>& inputs, const std::vector<OperandView>& outputs) const;
  std::shared_ptr<const cache::Entry> compile(const KernelLayout& layout, int arch, bool* compiled = nullptr) const;
  // The manifest entry that makes exactly this kernel again (record mode).
  std::string recipe(const KernelLayout& layout, int arch) const;
  // Its fields that name the program (name, program or operation, dtypes,
  // options), without layouts and targets: a program with reductions adds its
  // shapes instead (api/reduce_call.hpp).
  const std::string& recipe_fields() const;

  // A program derived from this one (a pass of a program with reductions,
  // src/plan/reduce_plan.hpp), made by `make` on first use and kept with this
  // program, so its launches take the hot path from the second call on.
  // `key` names what the derived program is made of; it is part of the
  // derived program's cache key, as the same source makes several of them.
  const GpuProgram& derived(const std::string& key, const std::function<std::shared_ptr<const Program>()>& make) const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};



// The program copy_on_device launches for `t` (planned ahead by precompiling).
const GpuProgram& copy_program(DType t);

// Copies `src` (any strides) into `dst` (same dtype and shape), both on one
// CUDA device, with a copy kernel. With no stream it returns when done.
void copy_on_device(const ArrayView& dst, const ArrayView& src, CUstream stream = nullptr);


// The images of a cache entry compiled for sm_<arch>, for select_image: views
// of the entry's bytes, which the cache holds once (no copy per load).
KernelImages entry_images(const cache::Entry& e, int arch);

// The layouts `jitcache compile --layout WHICH` precompiles ("contiguous",
// "strided" or "all"): the contiguous one a launch with aligned operands picks
// (preferred_vec), the unvectorized one, an `ndim`-d strided one.
std::vector<KernelLayout> precompile_layouts(const Program& p, const std::string& which, int ndim);

// Compiles kernel source through the kernel cache (memory, then disk, then
// NVRTC, once across threads and processes), keyed by the source, options,
// target and NVRTC version: what a launch does for a new layout, and what
// `jitcache compile` does without a GPU. `compiled` tells whether NVRTC ran.
// `recipe` (a manifest entry, see GpuProgram::recipe) is kept in the entry's
// PTX and, when NVRTC ran and CUJIT_RECORD is set, recorded (src/cache/record.hpp).
// An entry read from disk must hold `kernel_name` for the target (ELF, symbol,
// PTX; src/cache/kernel_image.hpp) and, when `signature` is given, take those
// parameters; otherwise it is discarded with a warning and compiled again.
// `cache` defaults to the process-wide one.
std::shared_ptr<const cache::Entry> compile_through_cache(const std::string& source, const std::string& kernel_name,
                                                          const CompileOptions& co, bool* compiled = nullptr,
                                                          const std::string& recipe = {},
                                                          const std::vector<ArgSlot>* signature = nullptr,
                                                          cache::KernelCache* cache = nullptr);

// The manifest fields of a jitrun-style program: name (the CUDA symbol),
// program, inputs with their dtypes and flags, declared outputs.
std::string program_recipe(const Program& p, const std::string& kernel_name);

}  // namespace cujit

// What jitrun and jitcache share on the command line: --version, the --help
// footer (exit codes, environment variables) and how errors are printed.
#pragma once
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <string>

#include "cujit/error.hpp"
#include "lang/diagnostic.hpp"

#ifndef CUJIT_VERSION
#define CUJIT_VERSION "unknown"
#endif

namespace cujit::tools {

inline std::string version_text(const char* tool) { return std::string(tool) + " (cujit) " + CUJIT_VERSION; }

// The --help footer. The variables are every one cujit reads (grep getenv).
inline std::string help_footer() {
  return "Exit codes:\n"
         "  0  success\n"
         "  1  usage: bad command line or option value\n"
         "  2  program: the program does not parse or check (or raw CUDA code does not compile)\n"
         "  3  data: bad input or output data (files, shapes, dtypes, values)\n"
         "  4  device: CUDA driver, GPU or NVRTC/toolkit problem\n"
         "  5  internal: a bug of cujit; please report it\n"
         "Environment:\n"
         "  CUJIT_CACHE=0               disable the disk cache of compiled kernels (memory only)\n"
         "  CUJIT_CACHE_DIR             cache folder (default $XDG_CACHE_HOME/cujit, else ~/.cache/cujit)\n"
         "  CUJIT_CACHE_SAVE_SOURCE=1   keep each kernel's CUDA source in its cache entry\n"
         "  CUJIT_CACHE_LOCK_TIMEOUT    seconds to wait for another process compiling the same kernel\n"
         "  CUJIT_TEMPLATE_DIR          read the kernel templates from this folder\n"
         "  CUJIT_PREWARM=0             do not read NVRTC into memory ahead of the first compile\n"
         "  CUJIT_NUM_THREADS=N         threads of the CPU evaluator (default: one per core)\n"
         "  CUJIT_CPU_MATH=libm         CPU math from the C library, not SLEEF's vector functions (default: auto)\n"
         "  CUJIT_RECORD=FILE           append every kernel compiled to this manifest (jitcache precompile FILE)\n"
         "  CUJIT_POOL=0                allocate device arrays directly, not from cujit's stream-ordered pool\n"
         "  CUJIT_POOL_RELEASE=BYTES    memory the pool keeps when idle (K/M/G suffixes, max; default: all until trimmed)\n"
         "  CUJIT_HOST_POOL=0           free large host arrays (32 MiB and up) at once, keeping none for reuse\n"
         "  CUJIT_HOST_POOL_KEEP=BYTES  freed host memory kept for reuse (K/M/G suffixes, max; default: 1/8 of RAM)\n"
         "  CUJIT_NPY_READERS=N         threads reading a .npy file into each GPU (default: up to 4, as the cores go)\n"
         "  CUJIT_NPY_CHUNK_MIB=N       MiB a reader reads at a time into its pinned buffers (default: 4)\n"
         "  CUDA_HOME, CUDA_PATH        CUDA toolkit root (headers for NVRTC)\n"
         "  CUDA_VISIBLE_DEVICES        the GPUs CUDA shows\n"
         "  NO_COLOR                    no colours in diagnostics (they are coloured only on a terminal)";
}

// Colours on a terminal unless NO_COLOR is set to anything non-empty
// (https://no-color.org).
inline bool stderr_in_colour() {
  const char* no = std::getenv("NO_COLOR");
  return ::isatty(STDERR_FILENO) == 1 && !(no && *no);
}

// One error, as the tools print it: a program diagnostic as rendered (in
// colour on a terminal), anything else after the tool's name.
inline int report(const char* tool, const Error& e) {
  std::string text = e.what();
  if (e.code() == ErrorCode::Program) {
    if (stderr_in_colour()) text = colorize_diagnostic(text);
    std::fprintf(stderr, "%s\n", text.c_str());
  } else {
    std::fprintf(stderr, "%s: %s\n", tool, text.c_str());
  }
  return e.exit_code();
}

}  // namespace cujit::tools

// Compiling kernels ahead, with no GPU, so that an application's calls find
// them in the disk cache and compile nothing.
//
//   cujit::precompile("kernels.toml", {{"sm_80", "sm_90"}});   // a manifest (docs/deploy.md)
//   kernel.precompile({{"T", cujit::DType::Float32}});         // one ElementwiseKernel
//
// The kernels compiled are exactly those a launch looks up: the layout is
// planned by the launcher's own function for arrays of each layout kind, and
// the cache key is the launcher's. Targets are compiled in parallel (NVRTC
// compiles one program per thread). Errors of one kernel (an operation that
// does not check, a failed compile) are counted and reported, the others are
// still compiled; a manifest that cannot be read throws cujit::Error
// (ErrorCode::Data, "FILE:LINE:COLUMN: ..."). Reading manifests needs a
// cujit built with toml++ (ErrorCode::Usage otherwise).
#pragma once
#include <string>
#include <string_view>

#include "cujit/export.hpp"
#include "cujit/precompile_report.hpp"

namespace cujit {

CUJIT_API PrecompileReport precompile(const std::string& manifest_path, const PrecompileOptions& options = {});
// The manifest `toml`, named `name` in messages.
CUJIT_API PrecompileReport precompile_manifest(std::string_view toml, const std::string& name,
                                     const PrecompileOptions& options = {});

}  // namespace cujit

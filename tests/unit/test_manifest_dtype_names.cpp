// Precompile manifests take NumPy's dtype spellings; an unknown one is
// explained where it stands. cujit::precompile with no target speaks the API's
// terms (PrecompileOptions::archs), not jitcache's --arch.
#include <string>

#include "catch.hpp"
#include "api/manifest.hpp"
#include "cujit/error.hpp"
#include "cujit/precompile.hpp"
#include "core/driver.hpp"
#include "skip.hpp"
#include "unit/error_of.hpp"

using namespace cujit;
using test::error_of;

TEST_CASE("manifest: types, inputs and outputs in NumPy's spellings", "[deploy][manifest]") {
  if (!manifest_supported()) CUJIT_SKIP("this build has no toml++ (libtomlplusplus-dev): manifests are not read");
  Manifest m = parse_manifest("[[kernel]]\nprogram = \"out = x * a\"\ninputs = [\"x=T\", \"a=<f8:weak\"]\n"
                              "outputs = [\"out=f4\"]\ntypes = { T = [\"f4\", \"float\", \"np.int16\", \"u1\"] }\n",
                              "m.toml");
  REQUIRE(m.kernels.size() == 1);
  REQUIRE(m.kernels[0].types.size() == 1);
  CHECK(m.kernels[0].types[0].second ==
        std::vector<DType>{DType::Float32, DType::Float64, DType::Int16, DType::UInt8});
  CHECK(error_of([] { parse_manifest("[[kernel]]\nprogram = \"out = x\"\ninputs = [\"x=T\"]\n"
                                     "types = { T = [\"flaot32\"] }\n", "m.toml"); },
                 ErrorCode::Data)
            .find("'types.T': unknown dtype 'flaot32' (did you mean 'float32'?); the dtypes are bool, int8,") !=
        std::string::npos);
}

TEST_CASE("precompile with no target and no GPU names PrecompileOptions::archs", "[deploy][manifest]") {
  if (!manifest_supported()) CUJIT_SKIP("this build has no toml++ (libtomlplusplus-dev): manifests are not read");
  if (gpu_available()) {  // a GPU gives the target: the same call compiles for it
    CHECK_NOTHROW(precompile_manifest("[[kernel]]\nprogram = \"out = x\"\ninputs = [\"x=f4\"]\n", "m.toml", {}));
    return;
  }
  std::string msg = error_of([] { precompile_manifest("[[kernel]]\nprogram = \"out = x\"\ninputs = [\"x=f4\"]\n", "m.toml", {}); },
                             ErrorCode::Usage);
  CHECK(msg.rfind("no target to compile for: name one in PrecompileOptions::archs (e.g. {\"sm_90\"}) or a manifest "
                  "kernel's arch field (there is no GPU to take it from: ", 0) == 0);
  CHECK(msg.find("--arch") == std::string::npos);
}

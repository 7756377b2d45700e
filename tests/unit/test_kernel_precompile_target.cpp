// Issue 22: ElementwiseKernel::precompile with no target named. Without a GPU
// the error speaks to a C++ caller in the API's terms (PrecompileOptions::archs),
// not jitcache's `--arch`; with one, the GPU's arch is the target.
#include <string>

#include "catch.hpp"
#include "core/driver.hpp"
#include "cujit/elementwise.hpp"
#include "cujit/error.hpp"
#include "unit/error_of.hpp"

using namespace cujit;

TEST_CASE("ElementwiseKernel::precompile with no target: API terms without a GPU, the GPU's arch with one",
          "[deploy]") {
  ElementwiseKernel k("T x", "T y", "y = x * 2", "no_target");
  if (gpu_available()) {
    PrecompileReport r = k.precompile({{"T", DType::Float32}});
    CHECK(r.failed == 0);
    CHECK(r.compiled + r.cached == 1);
    return;
  }
  std::string msg = test::error_of([&] { k.precompile({{"T", DType::Float32}}); }, ErrorCode::Usage);
  CHECK(msg == "no target to compile for: name one in PrecompileOptions::archs (e.g. {\"sm_90\"}) or a manifest "
               "kernel's arch field (there is no GPU to take it from: " + gpu_unavailable_reason() + ")");
  CHECK(msg.find("--arch") == std::string::npos);
}

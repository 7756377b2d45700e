// Catch2 main of the GPU tests (Catch2 2.x and 3.x). Without a usable CUDA
// device it exits 77, which CTest reports as "skipped" (SKIP_RETURN_CODE).
#if __has_include(<catch2/catch_all.hpp>)
#include <catch2/catch_session.hpp>
#else
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>
#endif

#include <cstdio>

#include "core/driver.hpp"
#include "gpu_util.hpp"

int main(int argc, char** argv) {
  if (!cujit::gpu_available()) {
    std::printf("no CUDA device: skipping GPU tests (%s)\n",
                cujit::gpu_unavailable_reason().c_str());
    return 77;
  }
  std::printf("random inputs: CUJIT_TEST_SEED=%llu (set it to replay this run)\n",
              static_cast<unsigned long long>(cujit::gputest::run_seed()));
  return Catch::Session().run(argc, argv);
}

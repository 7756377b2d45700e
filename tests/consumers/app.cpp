// An application using cujit through its installed headers only. tests/package.cmake
// builds it three ways: find_package(cujit), add_subdirectory, pkg-config.
// The lines between "README begin" and "README end" are README.md's C++ example,
// word for word (the readme_example test compares them). Without a GPU (no
// driver, no device) the device half says so and the program checks the CPU
// half; where a device exists, any error of the device half fails it.
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <string>
#include <vector>

// README begin
#include <cujit/elementwise.hpp>
#include <cujit/evaluate.hpp>
// README end
#include <cujit/error.hpp>
#include <cujit/multi_gpu.hpp>
#include <cujit/npy.hpp>

namespace {

// Why there is no GPU to run on ("" when there is one): the only reason the
// device half may be left out.
std::string no_device_reason() {
  try {
    return cujit::all_devices().empty() ? "no CUDA device" : "";
  } catch (const cujit::Error& e) {
    const std::string what = e.what();
    if (e.code() == cujit::ErrorCode::Device &&
        (what.rfind("no CUDA device", 0) == 0 || what.rfind("no CUDA driver", 0) == 0))
      return what;
    throw;
  }
}

bool check(const cujit::Array& z, const char* where) {
  const float want[] = {12, 24, 36, 48};
  if (z.dtype() != cujit::DType::Float32 || z.size() != 4) {
    std::fprintf(stderr, "%s: z is %s %s\n", where, std::string(cujit::dtype_name(z.dtype())).c_str(),
                 cujit::to_string(z.shape()).c_str());
    return false;
  }
  for (int i = 0; i < 4; ++i)
    if (z.as<float>()[i] != want[i]) {
      std::fprintf(stderr, "%s: z[%d] = %g, want %g\n", where, i, z.as<float>()[i], want[i]);
      return false;
    }
  std::printf("%s: z = 12 24 36 48\n", where);
  return true;
}

}  // namespace

int main() {
  try {
    // README begin
    // Host arrays run on the CPU evaluator: no GPU needed.
    cujit::HostArray x(cujit::DType::Float32, {4}), y(cujit::DType::Float32, {4});
    for (int i = 0; i < 4; ++i) x.as<float>()[i] = i + 1, y.as<float>()[i] = 10.0f * (i + 1);
    auto outs = cujit::evaluate("z = a * x + y", {{"x", x}, {"y", y}, {"a", 2.0}});
    cujit::Array z = outs[0].array;  // float32 {12, 24, 36, 48}: 2.0 is a weak scalar, as in NumPy

    // CuPy's parameter syntax: T is bound from the arrays' dtypes, the scalar is converted to T.
    cujit::ElementwiseKernel axpy("T x, T y, T a", "T z", "z = a * x + y", "axpy");
    // README end
    if (!check(z, "cpu")) return 1;

    // .npy files through the installed cujit/npy.hpp: z saved and loaded back.
    std::string npy = (std::filesystem::temp_directory_path() / ("cujit_app_" + std::to_string(::getpid()) + ".npy")).string();
    cujit::save_npy(npy, z);
    cujit::Array loaded = cujit::load_npy(npy);
    std::filesystem::remove(npy);
    if (!check(loaded, "npy")) return 1;

    // A program error crosses the library boundary as cujit::Error.
    try {
      cujit::evaluate("z = sinn(x)", {{"x", x}});
      std::fprintf(stderr, "a misspelt function was accepted\n");
      return 1;
    } catch (const cujit::Error& e) {
      if (e.code() != cujit::ErrorCode::Program || std::string(e.what()).find("unknown function 'sinn'") == std::string::npos) {
        std::fprintf(stderr, "unexpected error %d: %s\n", e.exit_code(), e.what());
        return 1;
      }
    }

    if (const std::string absent = no_device_reason(); !absent.empty()) {
      std::printf("gpu: not run, this machine has no GPU (%s)\n", absent.c_str());
      return 0;
    }
    {
      // README begin
      // On the GPU: device arrays (Array::copy_of, Array::empty, or DLPack from other libraries).
      cujit::Array dx = cujit::Array::copy_of(x.view(), cujit::Device::cuda(0));
      cujit::Array dy = cujit::Array::copy_of(y.view(), cujit::Device::cuda(0));
      cujit::Array dz = axpy(dx, dy, 2.0)[0];  // allocated, with the broadcast shape
      axpy(dx, dy, 2.0, dz);                   // or written into a given array
      cujit::Array back = dz.to_host();
      // README end
      if (!check(back, "gpu")) return 1;
    }
  } catch (const cujit::Error& e) {
    std::fprintf(stderr, "error %d: %s\n", e.exit_code(), e.what());
    return 1;
  }
  return 0;
}

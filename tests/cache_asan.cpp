// The cache's byte parsers under AddressSanitizer and UBSan (CTest
// cache_asan): the entry decoder and the kernel check read files that anyone
// with access to the folder may have damaged, so every read must stay inside
// the bytes. Real kernels from NVRTC (no GPU), then truncated and randomly
// damaged images and entry files. kernel_image.cpp and entry.cpp are built
// into this program with the sanitizers; the rest of cujit is not.
#include <cstdio>
#include <random>
#include <string>

#include "gpu/compile.hpp"
#include "cache/entry.hpp"
#include "cache/kernel_image.hpp"
#include "cache/key.hpp"

using namespace cujit;
using namespace cujit::cache;

int main() {
  const char* source =
      "struct L { unsigned a[7]; };\n"
      "extern \"C\" __global__ void cujit_asan(float* y, const float* x, double s, char c, L l, long long n) {"
      "  long long i = blockIdx.x; if (i < n) y[i] = x[i] * s + c + l.a[3]; }\n";
  KernelExpect x;
  x.name = "cujit_asan";
  x.params = std::vector<ParamSpec>{{8, 8}, {8, 8}, {8, 8}, {1, 1}, {28, 4}, {8, 8}};
  const std::vector<int>& archs = nvrtc_supported_archs();
  std::mt19937 rng(20261123);
  long checked = 0, passed = 0;
  for (int arch : {cap_arch(90), archs.back()}) {
    CompileOptions co;
    co.arch = arch;
    CompiledKernel k = compile_cuda(source, "cujit_asan", co);
    x.arch = arch;
    const Entry good{k.target, k.cubin, k.ptx, ""};
    if (std::string p = check_kernel_image(good, x); !p.empty()) {
      std::fprintf(stderr, "cache_asan: the good kernel for sm_%d fails: %s\n", arch, p.c_str());
      return 1;
    }
    const Key key{1, 2};
    const std::string file = encode_entry(key, good, false);
    for (std::size_t n = 0; n < good.cubin.size(); ++n, ++checked)
      passed += check_cubin(std::string_view(good.cubin).substr(0, n), x).empty();
    for (int m = 0; m < 100000; ++m, ++checked) {
      std::string img = good.cubin;
      for (int f = 0; f <= m % 4; ++f) img[rng() % img.size()] = static_cast<char>(rng());
      passed += check_cubin(img, x).empty();
      std::string bytes = file;
      for (int f = 0; f <= m % 3; ++f) bytes[rng() % bytes.size()] = static_cast<char>(rng());
      if (m % 7 == 0) bytes.resize(rng() % bytes.size());
      Decoded<Entry> d = decode_entry(bytes, key, k.target);
      if (d.value) (void)check_kernel_image(*d.value, x);
    }
  }
  std::printf("cache_asan: %ld damaged images and entries checked, %ld images still passed, no bad read\n", checked,
              passed);
  return 0;
}

// Loads cubins of generated kernels and times them (driver API), with a copy of the same bytes.
#include <cuda.h>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <string>
#include <algorithm>
#include <fstream>
#include <sstream>
#include <iostream>
#define CK(x) do { CUresult r = (x); if (r != CUDA_SUCCESS) { const char* s; cuGetErrorString(r, &s); printf("CU %s at %d\n", s, __LINE__); exit(1);} } while (0)
int main(int argc, char** argv) {
  // argv: copy.cubin then groups "name nin insize outsize vec file1 file2 ..." separated by ';' lines on stdin
  CK(cuInit(0)); CUdevice d; CK(cuDeviceGet(&d, 0)); CUcontext c; CK(cuDevicePrimaryCtxRetain(&c, d)); CK(cuCtxSetCurrent(c));
  char nm[256]; cuDeviceGetName(nm, 256, d); printf("# %s\n", nm);
  std::string line;
  CUmodule cm; CK(cuModuleLoad(&cm, argv[1])); CUfunction cf; CK(cuModuleGetFunction(&cf, cm, "copyk"));
  std::vector<int> lgs = {20, 24, 26, 28, 30};
  while (std::getline(std::cin, line)) {
    std::istringstream is(line); std::string name; int nin, insz, outsz, vec; is >> name >> nin >> insz >> outsz >> vec;
    std::vector<std::pair<std::string, int>> files; std::string f; int u; while (is >> f >> u) files.push_back({f, u});
    std::vector<CUfunction> fns; for (auto& p : files) { CUmodule m; CK(cuModuleLoad(&m, p.first.c_str())); CUfunction fn; CK(cuModuleGetFunction(&fn, m, "jitrun")); fns.push_back(fn); }
    for (int lg : lgs) {
      long long n = 1LL << lg; size_t bytes = (size_t)n * (nin * insz + outsz);
      if (bytes > (size_t)40 << 30) continue;
      std::vector<CUdeviceptr> in(nin); CUdeviceptr out;
      for (auto& p : in) { CK(cuMemAlloc(&p, n * insz)); CK(cuMemsetD8(p, 0x3c, n * insz)); }
      CK(cuMemAlloc(&out, n * outsz));
      CUevent e0, e1; CK(cuEventCreate(&e0, 0)); CK(cuEventCreate(&e1, 0));
      auto timeit = [&](auto launch) { std::vector<float> ts; launch(); CK(cuCtxSynchronize());
        for (int r = 0; r < 25; ++r) { CK(cuEventRecord(e0, 0)); launch(); CK(cuEventRecord(e1, 0)); CK(cuEventSynchronize(e1)); float ms; CK(cuEventElapsedTime(&ms, e0, e1)); ts.push_back(ms * 1000); }
        std::sort(ts.begin(), ts.end()); return ts[12]; };
      // copy of the same bytes: read nin*insz*n, write outsz*n ~ copy of bytes/2 both ways
      CUdeviceptr cs, cd; size_t half = bytes / 2 / 16 * 16; CK(cuMemAlloc(&cs, half)); CK(cuMemAlloc(&cd, half));
      long long nv = half / 16; void* cargs[] = {&cs, &cd, &nv};
      float tc = timeit([&] { CK(cuLaunchKernel(cf, (unsigned)((nv + 255) / 256), 1, 1, 256, 1, 1, 0, 0, cargs, 0)); });
      printf("%-6s 2^%d copy %8.1f us %6.0f GB/s |", name.c_str(), lg, tc, bytes / tc / 1e3);
      for (size_t i = 0; i < fns.size(); ++i) {
        std::vector<void*> args; args.push_back(&out); for (auto& p : in) args.push_back(&p); args.push_back(&n);
        long long vectors = (n + vec - 1) / vec, threads = (vectors + files[i].second - 1) / files[i].second;
        unsigned grid = (unsigned)std::min<long long>((threads + 255) / 256, 2147483647LL);
        float t = timeit([&] { CK(cuLaunchKernel(fns[i], grid, 1, 1, 256, 1, 1, 0, 0, args.data(), 0)); });
        printf(" U%d %8.1f us %.3f |", files[i].second, t, tc / t);
      }
      printf("\n"); fflush(stdout);
      for (auto& p : in) cuMemFree(p); cuMemFree(out); cuMemFree(cs); cuMemFree(cd);
    }
  }
}

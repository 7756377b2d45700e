extern "C" __global__ void copyk(const uint4* __restrict__ x, uint4* __restrict__ z, long long nv) {
  for (long long k = blockIdx.x * (long long)blockDim.x + threadIdx.x; k < nv; k += (long long)blockDim.x * gridDim.x) z[k] = x[k];
}

// ==== cujit generator {{KERNEL_NAME}}: {{WHAT}} ====
// Fills an array on the device with the values the host fill gives (the
// generators of random.cuh, shared by both). Do not edit: the cache key is this text.
{{HEADER}}

extern "C" __global__ void {{KERNEL_NAME}}({{TYPE}}* __restrict__ out, cj::gen::params p) {
  const cj_u64 step = (cj_u64)blockDim.x * gridDim.x;
  for (cj_u64 k = (cj_u64)blockIdx.x * blockDim.x + threadIdx.x; k < p.n; k += step)
    out[k] = cj::gen::{{GENERATOR}}::at<{{TYPE}}>(p.first + k, p);
}

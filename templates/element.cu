// One element of the program, in compute types (float16 and bfloat16 values
// are held in float, rounded after every operation). Always inlined: a call
// per element cost `out = sin(x)*5` a quarter of its bandwidth on an H200
// (0.71 of a device copy against 0.94), more than the NVRTC time it saves.
static __device__ __forceinline__ void cj_element({{ELEMENT_PARAMS}}) {
  {{BODY}}
}

// One element of the program, in compute types (float16 and bfloat16 values
// are held in float, rounded after every operation).
static __device__ __forceinline__ void cj_element({{ELEMENT_PARAMS}}) {
  {{BODY}}
}

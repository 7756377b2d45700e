// One element of the program, in compute types (float16 and bfloat16 values
// are held in float, rounded after every operation). Inlined, unless the body
// is heavy and a vector kernel would copy it once per lane (codegen.cpp:
// outline_element).
static __device__ {{INLINE}} void cj_element({{ELEMENT_PARAMS}}) {
  {{BODY}}
}

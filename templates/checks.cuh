// ---- checks.cuh: failures a kernel reports instead of raising ----
// The first failure is recorded in err[0..3] (zeroed by the launcher), which
// the host turns into the CPU evaluator's error message after the launch:
//   err[0] = 1: a raw index out of bounds; err[1] = the input's position, err[2] = the index, err[3] = the size
//   err[0] = 2: a weak scalar that does not fit; err[1] = the DType code, err[2] = the value
//   err[0] = 3: an integer to a negative integer power; err[2] = the exponent
// An out-of-bounds read gives 0 and never touches memory.
namespace cj {

__device__ __noinline__ void report(long long* err, long long kind, long long a, long long b, long long c) {
  if (atomicCAS(reinterpret_cast<unsigned long long*>(err), 0ull, (unsigned long long)kind) == 0ull) {
    err[1] = a;
    err[2] = b;
    err[3] = c;
  }
}
template <class T> __device__ __forceinline__ T raw_at(const T* p, long long size, long long j, int param, long long* err) {
  if (j < 0 || j >= size) {
    report(err, 1, param, j, size);
    return T();
  }
  return p[j];
}
// A weak (Python-like) integer converted to the integer type T of an
// operation must fit in it, as a literal must at check time.
template <class T> __device__ __forceinline__ long long fit(long long v, int dtype, long long* err) {
  if ((long long)(T)v != v || neg_((T)v) != (v < 0)) report(err, 2, dtype, v, 0);
  return v;
}

// NumPy raises for an integer to a negative integer power; the kernel reports
// the exponent and goes on with ipow's defined value.
template <class T> __device__ __forceinline__ T nonneg_exponent(T b, long long* err) {
  if (b < T(0)) report(err, 3, 0, (long long)b, 0);
  return b;
}

}  // namespace cj

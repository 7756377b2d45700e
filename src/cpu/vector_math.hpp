// SLEEF's vector math for the CPU evaluator's float32 and float64 loops of
// the operations vector_math.def lists: eight float32 (four float64) elements
// per call, each within 1.0 ulp of the exact result (hypot 0.5; float32
// sin, cos, tanh, log and arctan2 3.5: vector_math.def says why), where the C
// library's scalar functions take one element per call. numexpr gets the same
// from Intel's VML and NumPy from its own SIMD loops; without it the CPU path
// spends most of its time in scalar libm on programs such as tanh(x) or x**y.
//
// Used when the machine has it: libsleef.so.3 (Debian/Ubuntu package
// libsleef3), opened with dlopen on first use as libcuda is (no link or build
// dependency, so an application or a machine without it loses only speed),
// and a CPU with AVX2 and FMA. Otherwise, or with CUJIT_CPU_MATH=libm, every
// operation calls its template function, the C library's scalar function.
// Either way results are within the language's accuracy contract; the last
// ulp (those float32 functions: the last few) can differ between the two (as NumPy's own SIMD
// loops differ from the C library's).
#pragma once
#include <string>

#include "cpu/eval_loops.hpp"

namespace cujit::cpu {

// The SLEEF loop of operation `id` with `t` (Float32 or Float64) operands
// and result, or nullptr: not listed, another dtype, or SLEEF not in use. A
// Usage error when CUJIT_CPU_MATH holds something other than "libm" or "auto".
Loop vector_loop(Op id, DType t);

// What computes vector_math.def's functions here, for people: "SLEEF 3 (AVX2)"
// "SLEEF 3 (AVX-512)" or "the C library (why)".
std::string cpu_math();

}  // namespace cujit::cpu

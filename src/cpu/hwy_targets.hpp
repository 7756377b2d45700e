// The instruction sets Highway compiles the CPU loops for (eval_ops.cpp,
// reduce_loops.cpp): the compiler's baseline (SSE2 on x86-64), AVX2 + FMA and
// AVX-512 (Skylake-X and later; a newer Highway adds variants for newer
// CPUs). SSSE3/SSE4 would add little over the baseline for these loops, and
// each target is a full copy of every loop. Included before foreach_target.h.
#pragma once

#ifndef HWY_DISABLED_TARGETS
#define HWY_DISABLED_TARGETS (HWY_SSSE3 | HWY_SSE4 | HWY_AVX3_DL)
#endif

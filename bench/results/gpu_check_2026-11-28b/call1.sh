#!/usr/bin/env bash
# The NumPy reference cases and random elementwise programs on a GPU after the fused complex product and
# NumPy's signed-zero minimum/maximum (templates/complex.cuh, templates/math.cuh).
# From the repository root on one GPU: DEPS=$PWD/.devdeps bash bench/results/gpu_check_2026-11-28b/call1.sh
set -uo pipefail
D=${DEPS:-$PWD/.devdeps}
export LD_LIBRARY_PATH=$D/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
L=$OUT/steps.log; t() { echo "[$(el)s] $*" | tee -a $L; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u; } > $OUT/machine.txt
export CUJIT_CACHE_DIR=/tmp/cjg
B=/tmp/bg
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$D -DCUJIT_BUILD_BENCH=OFF -DCUJIT_BUILD_SAMPLES=OFF > /tmp/cmake.log 2>&1 || { tail -20 /tmp/cmake.log; exit 1; }
cmake --build $B -j16 --target jitrun cujit_gpu_tests > /tmp/build.log 2>&1 || { grep error -A5 /tmp/build.log | head -40; exit 1; }
t built
timeout 110 python3 tests/cli/numpy_elementwise_diff.py $B/tools/jitrun 300 20261128 0 > $OUT/diff_gpu.log 2>&1; t "numpy_elementwise_diff on GPU 0 exit $? ($(tail -1 $OUT/diff_gpu.log))"
grep FAIL $OUT/diff_gpu.log | head -20 >> $L
timeout 170 $B/tests/cujit_gpu_tests "[reference]" > $OUT/reference.log 2>&1; t "[reference] exit $? ($(tail -2 $OUT/reference.log | tr '\n' ' '))"
grep -a FAILED -A10 $OUT/reference.log | head -40 >> $L

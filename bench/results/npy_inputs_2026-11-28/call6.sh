#!/usr/bin/env bash
# Call 6: the GPU tests of --device all's broadcast rule (the job's rows are the largest first extent
# among the inputs of the most dimensions, so a (1, n) file beside an (m, n) one is gathered, not cut).
# From the repository root on a machine of two GPUs: DEPS=$PWD/.devdeps bash bench/results/npy_inputs_2026-11-28/call6.sh
set -uo pipefail
D=${DEPS:-$PWD/.devdeps}
export LD_LIBRARY_PATH=$D/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
export CUJIT_CACHE_DIR=/tmp/cjn
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
L=$OUT/steps.log; t() { echo "[$(el)s] $*" | tee -a $L; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u; } > $OUT/machine.txt 2>&1
B=/tmp/bn
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$D -DCUJIT_BUILD_SAMPLES=OFF -DCUJIT_BUILD_BENCH=OFF > /tmp/cmake.log 2>&1 || { tail -30 /tmp/cmake.log; exit 1; }
cmake --build $B -j$(nproc) --target jitrun cujit_gpu_tests > /tmp/build.log 2>&1 || { grep -E 'error' -A5 /tmp/build.log | head -60; exit 1; }
t built
timeout 120 $B/tests/cujit_gpu_tests "[multi_gpu],[npy]" > $OUT/tests.log 2>&1; t "tests exit $? ($(tail -2 $OUT/tests.log | tr '\n' ' '))"
grep -a -E "FAILED|failed" -A12 $OUT/tests.log | head -60 >> $L

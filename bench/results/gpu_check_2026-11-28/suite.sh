#!/usr/bin/env bash
# The GPU entries of CTest on one GPU within one short device call (the reference cases sampled,
# every 4th, and the entries that take the whole GPU's memory left out), after the session's
# changes to jitrun's summary lines, copies between GPUs and the host pool. From the repository
# root: DEPS=$PWD/.devdeps LIMIT=400 bash bench/results/gpu_check_2026-11-28/suite.sh (logs to $OUT)
set -uo pipefail
D=${DEPS:-$PWD/.devdeps}
export LD_LIBRARY_PATH=$D/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} CUJIT_CACHE_DIR=/tmp/cjs
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
L=$OUT/steps.log; t() { echo "[$(el)s] $*" | tee -a $L; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u; } > $OUT/machine.txt
B=/tmp/bs
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$D -DCUJIT_BUILD_BENCH=OFF -DCUJIT_BUILD_SAMPLES=OFF > /tmp/cmake.log 2>&1 || { tail -30 /tmp/cmake.log; exit 1; }
cmake --build $B -j$(nproc) --target cujit_gpu_tests > /tmp/build.log 2>&1 || { grep -E 'error' -A5 /tmp/build.log | head -60; exit 1; }
t build ok
left=$(( ${LIMIT:-400} - $(el) ))
CUJIT_GPU_REF_SAMPLE=4 timeout $left ctest --test-dir $B -L gpu -j8 -E "gpu_memory|gpu_generate_4gb|gpu_huge" --timeout $left --output-on-failure > $OUT/ctest.log 2>&1
t "ctest exit $? ($(grep -E 'tests passed|tests failed' $OUT/ctest.log))"
grep -E "Passed|Failed|Skipped|\*\*\*" $OUT/ctest.log | tee -a $L

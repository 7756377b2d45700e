#!/usr/bin/env bash
# One GPU, from the repository root with $OUT set: a Release build; float16 NaN bits, [elementwise], [reduce], [reference] GPU tests; then the reductions bench (RED_QUICK).
set -uo pipefail
D=${DEPS:-$PWD/../.devdeps}  # headers the machine lacks (CMAKE_PREFIX_PATH)
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
L=$OUT/steps.log; t() { echo "[$(el)s] $*" | tee -a $L; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u; git log --oneline -1; } > $OUT/machine.txt
export CUJIT_CACHE_DIR=/tmp/cjcache
B=/tmp/b
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$D -DCUJIT_BUILD_BENCH=ON -DCUJIT_BUILD_SAMPLES=OFF > /tmp/cmake.log 2>&1 || { tail -30 /tmp/cmake.log; exit 1; }
cmake --build $B -j16 --target cujit_gpu_tests jitrun bench_reductions > /tmp/build.log 2>&1 || { grep -E 'error' -A5 /tmp/build.log | head -60; exit 1; }
t build ok
timeout 60 $B/tests/cujit_gpu_tests "[elementwise]" > $OUT/tests.log 2>&1; t "[elementwise] exit $?"; tail -2 $OUT/tests.log >> $L
CUJIT_TEST_REDUCE_MAX=140000 timeout 150 $B/tests/cujit_gpu_tests "[reduce]" >> $OUT/tests.log 2>&1; t "[reduce] exit $?"; tail -2 $OUT/tests.log >> $L
timeout 230 $B/tests/cujit_gpu_tests "[reference]" >> $OUT/tests.log 2>&1; t "[reference] exit $?"; tail -2 $OUT/tests.log >> $L
grep -E "FAILED" -A12 $OUT/tests.log | head -50 >> $L
RED_QUICK=1 timeout ${BENCH_S:-200} python3 bench/reductions.py $B/bench/bench_reductions $OUT > $OUT/bench.log 2>&1; t "bench exit $?"
cat $L

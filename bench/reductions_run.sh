#!/usr/bin/env bash
# One GPU, from the repository root with $OUT set: a Release build, the reduction tests (FULLCASES=1: every
# reference case too), bench/reductions.py (tables and plots to $OUT), then compute-sanitizer memcheck and
# racecheck on [reduce] while time is left (LIMIT seconds in all). The run behind bench/results/reductions_h1x0/.
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
CUJIT_TEST_REDUCE_MAX=140000 timeout 150 $B/tests/cujit_gpu_tests "[reduce],fused reduction*" > $OUT/tests.log 2>&1; t "[reduce]+fused exit $?"; tail -2 $OUT/tests.log >> $L
grep -E "FAILED" -A14 $OUT/tests.log | head -40 >> $L
if [ -n "${FULLCASES:-}" ]; then timeout 120 $B/tests/cujit_gpu_tests "[reduction-gpu]" >> $OUT/tests.log 2>&1; t "[reduction-gpu] exit $?"; tail -2 $OUT/tests.log >> $L; fi
timeout ${BENCH_S:-330} python3 bench/reductions.py $B/bench/bench_reductions $OUT > $OUT/bench.log 2>&1; t "bench exit $?"
left=$(( ${LIMIT:-575} - $(el) ))
if [ $left -gt 30 ]; then
  CUJIT_TEST_REDUCE_MAX=20000 timeout $(( left / 2 )) compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/cujit_gpu_tests "[reduce]" > /tmp/san.log 2>&1; t "memcheck [reduce] exit $?"; grep -E "ERROR SUMMARY|test cases" /tmp/san.log | tail -2 >> $L
  CUJIT_TEST_REDUCE_MAX=20000 timeout $(( left / 2 - 5 )) compute-sanitizer --tool racecheck --error-exitcode 9 $B/tests/cujit_gpu_tests "[reduce]" > /tmp/san2.log 2>&1; t "racecheck [reduce] exit $?"; grep -E "RACECHECK SUMMARY|test cases" /tmp/san2.log | tail -2 >> $L
fi
cat $L

#!/usr/bin/env bash
# One H200 call (2026-11-28, second session), after the strided layout takes four elements a thread
# (loads first) and exact one-row reductions under one round are cut into one chunk per resident
# block (measured slower and not kept, NOTES.md); CUB now reads the same varied inputs as cujit. A Release build; the GPU tests those touch
# (the new long-row test, [inplace] with its strided edges, the NumPy reference cases sampled, every
# 16th, in every layout, [reduce] up to 140000 elements); bench/reductions.py with every peer
# ($OUT/red); bench/layouts.py for the sliced input ($OUT/lay).
# From the repository root: DEPS=$PWD/.devdeps bash bench/results/h200_2026-11-28/call3.sh
set -uo pipefail
D=${DEPS:-$PWD/.devdeps}
export LD_LIBRARY_PATH=$D/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} CUJIT_CACHE_DIR=/tmp/cjc
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
L=$OUT/steps.log; t() { echo "[$(el)s] $*" | tee -a $L; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u; } | tee -a $L
B=/tmp/b
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$D -DCUJIT_BUILD_BENCH=ON -DCUJIT_BUILD_SAMPLES=OFF > /tmp/cmake.log 2>&1 || { tail -30 /tmp/cmake.log; exit 1; }
cmake --build $B -j$(nproc) --target cujit_gpu_tests bench_reductions bench_layouts > /tmp/build.log 2>&1 || { grep -E 'error' -A5 /tmp/build.log | head -60; exit 1; }
t build ok
T=$OUT/tests.log
run_t() { local s=$1; shift; timeout $s $B/tests/cujit_gpu_tests "$@" >> $T 2>&1; local rc=$?; t "tests $* exit $rc"; grep -E "test cases|assertions" $T | tail -2 | tee -a $L; }
run_t 60 "exact reductions of long rows*"
run_t 40 "[inplace]"
CUJIT_GPU_REF_SAMPLE=16 run_t 70 "[reference]"
grep -E "FAILED" -A12 $T | head -40 >> $L
mkdir -p $OUT/red $OUT/lay
timeout 225 python3 bench/reductions.py $B/bench/bench_reductions $OUT/red > $OUT/red/bench.log 2>&1; t "reductions bench exit $?"
LAYOUTS_MAX_LOG2=30 timeout 60 python3 bench/layouts.py $B/bench/bench_layouts $OUT/lay sliced > /tmp/lay.log 2>&1; t "layouts sliced exit $?"; tail -8 /tmp/lay.log >> $L
left=$(( 575 - $(el) ))
[ $left -gt 10 ] && CUJIT_TEST_REDUCE_MAX=140000 run_t $left "[reduce]"
grep -E "FAILED" -A12 $T | tail -30 >> $L

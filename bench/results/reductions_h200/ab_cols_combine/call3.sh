#!/usr/bin/env bash
# Call 3 (2026-11-29, after call 2): the kept columns kernel (call 2's cur) in the GPU tests: [reduce]
# in full, then Nsight Compute of float16 sum(x*y) at 2^26 (0.77-0.79 of the stream from 2^26 in the
# tables: where its time goes), then [reference] on the GPU with the time left.
# From the repository root: DEPS=$PWD/.devdeps bash bench/results/reductions_h200/ab_cols_combine/call3.sh
set -uo pipefail
D=${DEPS:-$PWD/.devdeps}
export LD_LIBRARY_PATH=$D/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} CUJIT_CACHE_DIR=/tmp/cjt
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
L=$OUT/steps.log; t() { echo "[$(el)s] $*" | tee -a $L; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u; } > $OUT/machine.txt
B=$PWD/build-dev
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$D -DCUJIT_BUILD_BENCH=ON -DCUJIT_BUILD_SAMPLES=OFF > /tmp/cmake.log 2>&1 || { tail -30 /tmp/cmake.log; exit 1; }
cmake --build $B -j16 --target bench_reductions cujit_gpu_tests > /tmp/build.log 2>&1 || { grep error -A5 /tmp/build.log | head -40; exit 1; }
t built
timeout 200 $B/tests/cujit_gpu_tests "[reduce]" > $OUT/tests_reduce.log 2>&1; t "[reduce] exit $?"
grep -E "test cases|assertions" $OUT/tests_reduce.log | tail -2 | tee -a $L; grep -E "FAILED" -A10 $OUT/tests_reduce.log | head -30 >> $L
S1="--section SpeedOfLight --section ComputeWorkloadAnalysis --section InstructionStats --section WarpStateStats --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis"
N=$OUT/ncu.txt; echo "# Nsight Compute, $(date -u +%F): ncu -k regex:cj_ --launch-skip 3 --launch-count 1 $S1" > $N
for line in "dot16|dot|float16|1|67108864|1" "dot32|dot|float32|1|67108864|1"; do
  echo "== $line" >> $N; echo "$line" | timeout 40 ncu -k regex:cj_ --launch-skip 3 --launch-count 1 $S1 $B/bench/bench_reductions >> $N 2>&1; t "ncu $line exit $?"
done
left=$(( 580 - $(el) ))
timeout $left $B/tests/cujit_gpu_tests "[reference]" > $OUT/reference.log 2>&1; t "[reference] exit $? ($(grep -E 'test cases|assertions' $OUT/reference.log | tail -2 | tr '\n' ' '))"
grep -a FAILED -A10 $OUT/reference.log | head -40 >> $L

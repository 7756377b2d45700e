#!/usr/bin/env bash
# One H200 call (2026-11-28, second session): a Release build of the working tree; the reduction
# tests in full (every NumPy reference case in three layouts, the fused programs, [reduce]); the
# GPU entries `gpu`, `gpu_inplace`, `gpu_manifest`; Nsight Compute of the misses not profiled yet
# (row normalisation, the sliced input, float16 argmax at 2^24, float64 max at 2^20, axis 0 of
# (2^20, 64)); compute-sanitizer memcheck and racecheck on [reduce] while time is left.
# From the repository root: DEPS=$PWD/.devdeps LIMIT=570 bash bench/results/h200_2026-11-28/call1.sh
set -uo pipefail
D=${DEPS:-$PWD/.devdeps}
export LD_LIBRARY_PATH=$D/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} CUJIT_CACHE_DIR=/tmp/cjc
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
L=$OUT/steps.log; t() { echo "[$(el)s] $*" | tee -a $L; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u; } > $OUT/machine.txt
B=/tmp/b
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$D -DCUJIT_BUILD_BENCH=ON -DCUJIT_BUILD_SAMPLES=OFF > /tmp/cmake.log 2>&1 || { tail -30 /tmp/cmake.log; exit 1; }
cmake --build $B -j$(nproc) --target cujit_gpu_tests bench_reductions bench_layouts > /tmp/build.log 2>&1 || { grep -E 'error' -A5 /tmp/build.log | head -60; exit 1; }
t build ok
timeout 240 $B/tests/cujit_gpu_tests "[reduction-gpu],[reduce]" --durations yes > $OUT/tests_reductions.log 2>&1; t "[reduction-gpu],[reduce] exit $?"
grep -E "test cases|assertions" $OUT/tests_reductions.log | tail -2 | tee -a $L
grep -E "FAILED|failed" -A10 $OUT/tests_reductions.log | head -40 >> $L
( cd $B && timeout 120 ctest -L gpu -R "^gpu$|gpu_inplace|gpu_manifest|gpu_fault" -j4 --output-on-failure > $OUT/ctest.log 2>&1 ); t "ctest gpu,inplace,manifest,faults exit $?"
grep -E "Passed|Failed|Timeout|tests passed" $OUT/ctest.log | tee -a $L
S1="--section SpeedOfLight --section WarpStateStats --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis --section InstructionStats --section ComputeWorkloadAnalysis"
N=$OUT/ncu.txt
echo "# Nsight Compute, H200, $(date -u +%F): one launch each after 3 (ncu -k regex:cj_ --launch-skip 3 --launch-count 1 $S1 [--section SourceCounters]), Release build of the working tree" > $N
prof() { local bin=$1 line=$2 extra=${3:-}; echo "== $line" >> $N; echo "$line" | timeout 60 ncu -k regex:cj_ --launch-skip 3 --launch-count 1 $S1 $extra $bin >> $N 2>&1; t "ncu $line exit $?"; }
prof $B/bench/bench_reductions "norm|norm|float32|65536|4096|1" "--section SourceCounters"
prof $B/bench/bench_layouts "sliced@2^24|float32 x|float32 z|z = x*2 + 1|float32:33554432:S2|float32:16777216:c|-1"
prof $B/bench/bench_reductions "argmax16|argmax|float16|1|16777216|1"
prof $B/bench/bench_reductions "max64|max|float64|1|1048576|1"
prof $B/bench/bench_reductions "cols64|sum|float32|1|1048576|64"
left=$(( ${LIMIT:-570} - $(el) ))
if [ $left -gt 40 ]; then
  CUJIT_TEST_REDUCE_MAX=20000 timeout $(( left / 2 )) compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/cujit_gpu_tests "[reduce]" > /tmp/san.log 2>&1; t "memcheck [reduce] exit $?"; grep -E "ERROR SUMMARY|test cases" /tmp/san.log | tail -2 | tee -a $L
  CUJIT_TEST_REDUCE_MAX=20000 timeout $(( left / 2 - 5 )) compute-sanitizer --tool racecheck --error-exitcode 9 $B/tests/cujit_gpu_tests "[reduce]" > /tmp/san2.log 2>&1; t "racecheck [reduce] exit $?"; grep -E "RACECHECK SUMMARY|test cases" /tmp/san2.log | tail -2 | tee -a $L
fi

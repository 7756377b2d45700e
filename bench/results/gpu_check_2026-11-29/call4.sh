#!/usr/bin/env bash
# Call 4 (2026-11-29, tenth session): the kept rule of call 3 (argmin/argmax of values of 4 bytes
# or less, past 16 MiB read: 4 vectors a step into 2 slots in turn). memcheck of the long-row
# test (its 2^23-2^24 argmax rows take the new variant) beside [reduce] in full; then
# bench/reductions.py with every peer (tarred), and Nsight Compute on the float32 argmax and sum
# of 2^28 and the read ceiling (what argmax still pays at the large sizes).
#   DEPS=$PWD/.devdeps bash bench/results/gpu_check_2026-11-29/call4.sh   (logs to $OUT)
set -uo pipefail
D=${DEPS:-$PWD/.devdeps}
export LD_LIBRARY_PATH=$D/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
L=$OUT/steps.log; t() { echo "[$(el)s] $*" | tee -a $L; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u; } > $OUT/machine.txt
B=$PWD/build-dev
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$D -DCUJIT_BUILD_BENCH=ON -DCUJIT_BUILD_SAMPLES=OFF > /tmp/cmake.log 2>&1 || { tail -30 /tmp/cmake.log | tee -a $L; exit 1; }
[ -x /tmp/cub ] || (nvcc -O3 -std=c++17 -arch=native --extended-lambda -o /tmp/cub bench/reductions_cub.cu || echo "cub build failed" >> $L) &
cmake --build $B -j16 --target bench_reductions cujit_gpu_tests > /tmp/build.log 2>&1 || { grep error -A5 /tmp/build.log | head -40 | tee -a $L; exit 1; }
wait; t built
CUJIT_CACHE_DIR=/tmp/cjm timeout 110 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/cujit_gpu_tests "exact reductions of long rows*" > $OUT/san_long.log 2>&1 &
CUJIT_CACHE_DIR=/tmp/cjr timeout 110 $B/tests/cujit_gpu_tests "[reduce]" > $OUT/reduce.log 2>&1; t "[reduce] exit $? ($(grep -E 'test cases' $OUT/reduce.log | tail -1))"
wait; t "memcheck long rows: $(grep -E 'ERROR SUMMARY|test cases' $OUT/san_long.log | tr '\n' ' ')"
grep -E "FAILED" -A12 $OUT/reduce.log | head -30 >> $L
mkdir -p $OUT/red
CUJIT_CACHE_DIR=/tmp/cjt timeout 260 python3 bench/reductions.py $B/bench/bench_reductions $OUT/red > $OUT/red/bench.log 2>&1; t "reductions.py exit $?"
S1="--section SpeedOfLight --section WarpStateStats --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis --section InstructionStats"
N=$OUT/ncu.txt; echo "# Nsight Compute, H200, $(date -u +%F): ncu -k regex:cj_ --launch-skip 3 --launch-count 1 $S1" > $N
for c in "am:float32:28|argmax|float32|1|268435456|1" "sum32:28|sum|float32|1|268435456|1"; do
  echo "== $c" >> $N; echo "$c" | CUJIT_CACHE_DIR=/tmp/cjt timeout 50 ncu -k regex:cj_ --launch-skip 3 --launch-count 1 $S1 $B/bench/bench_reductions >> $N 2>&1; t "ncu $c exit $?"
done
echo "== ceiling" >> $N; echo "ceil:sum32:28|read|sum|float32|1|268435456|1" | timeout 50 ncu -k regex:read_stream --launch-skip 3 --launch-count 1 $S1 /tmp/cub >> $N 2>&1; t "ncu ceiling exit $?"
cd $OUT && tar -czf out.tgz red san_long.log reduce.log && rm -rf red san_long.log reduce.log  # committed: the logs as logs.tgz, the table in ../../reductions_h200/

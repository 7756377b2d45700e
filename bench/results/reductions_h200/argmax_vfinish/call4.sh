#!/usr/bin/env bash
# Call 4 (2026-11-29, ninth session): the kept change (argmax: 2 slots for values of 4 bytes
# or less, half the chunks up to 32 MiB, cj_vfinish's loads together, the pair combine
# without branches; the rows kernel folds as it loads in chunks of fewer than 8 steps).
# compute-sanitizer memcheck and racecheck on the small [reduce] shapes, then the GPU's
# reduction tests in full: [reduce], [reduction-gpu], [reduction_kernel], [split_reduce].
#   DEPS=$PWD/.devdeps bash bench/results/reductions_h200/argmax_vfinish/call4.sh
set -uo pipefail
D=${DEPS:-$PWD/.devdeps}
export LD_LIBRARY_PATH=$D/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} CUJIT_CACHE_DIR=/tmp/cjt
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
L=$OUT/steps.log; t() { echo "[$(el)s] $*" | tee -a $L; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u; git log -1 --format=%h 2>/dev/null; } > $OUT/machine.txt
B=$PWD/build-dev
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$D -DCUJIT_BUILD_BENCH=ON -DCUJIT_BUILD_SAMPLES=OFF > /tmp/cmake.log 2>&1 || { tail -30 /tmp/cmake.log | tee -a $L; exit 1; }
[ -x /tmp/cub ] || (nvcc -O3 -std=c++17 -arch=native --extended-lambda -o /tmp/cub bench/reductions_cub.cu || echo "cub build failed" >> $L) &
cmake --build $B -j16 --target bench_reductions cujit_gpu_tests > /tmp/build.log 2>&1 || { grep error -A5 /tmp/build.log | head -40 | tee -a $L; exit 1; }
wait; t built
for tool in memcheck racecheck; do
  CUJIT_TEST_REDUCE_MAX=30000 timeout 120 compute-sanitizer --tool $tool --error-exitcode 9 $B/tests/cujit_gpu_tests "[reduce]" > $OUT/san_$tool.log 2>&1; t "$tool [reduce] exit $?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test cases" $OUT/san_$tool.log | tail -2 | tee -a $L
done
for tag in "[reduce]" "[reduction-gpu]" "[reduction_kernel]" "[split_reduce]"; do
  f=$OUT/tests_$(echo $tag | tr -d '[]').log
  left=$(( 560 - $(el) )); [ $left -lt 20 ] && { t "no time for $tag"; continue; }
  timeout $left $B/tests/cujit_gpu_tests "$tag" > $f 2>&1; t "$tag exit $? ($(grep -E 'test cases|assertions' $f | tail -1))"
  grep -E "FAILED" -A12 $f | head -30 >> $L
done
cd $OUT && tar -czf logs.tgz san_*.log tests_*.log && rm -f san_*.log tests_*.log

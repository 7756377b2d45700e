#!/usr/bin/env bash
# Call 1 (2026-11-29, tenth session): the GPU entries of CTest after the bool-bytes change
# (98bcc86: a bool is stored as a byte and read as != 0) and call 6's half-chunk rule, which
# the last session could not run: memcheck of the new bool test, then gpu, gpu_reference
# (every 4th case), gpu_reductions, gpu_inplace, gpu_manifest and the fault entries in parallel.
#   DEPS=$PWD/.devdeps bash bench/results/gpu_check_2026-11-29/call1.sh   (logs to $OUT)
set -uo pipefail
D=${DEPS:-$PWD/.devdeps}
export LD_LIBRARY_PATH=$D/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} CUJIT_CACHE_DIR=/tmp/cjt
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
L=$OUT/steps.log; t() { echo "[$(el)s] $*" | tee -a $L; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u; git log -1 --format=%h 2>/dev/null; } > $OUT/machine.txt
B=$PWD/build-dev
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$D -DCUJIT_BUILD_BENCH=ON -DCUJIT_BUILD_SAMPLES=OFF > /tmp/cmake.log 2>&1 || { tail -30 /tmp/cmake.log | tee -a $L; exit 1; }
[ -x /tmp/cub ] || (nvcc -O3 -std=c++17 -arch=native --extended-lambda -o /tmp/cub bench/reductions_cub.cu > /tmp/cub.log 2>&1 || echo "cub build failed" >> $L) &
cmake --build $B -j16 --target cujit_gpu_tests jitrun jitcache bench_reductions > /tmp/build.log 2>&1 || { grep error -A5 /tmp/build.log | head -40 | tee -a $L; exit 1; }
wait; t built
timeout 90 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/cujit_gpu_tests "evaluate: a bool input's nonzero bytes*" > $OUT/san_bool.log 2>&1; t "memcheck bool test exit $?"
grep -E "ERROR SUMMARY|test cases|FAILED" $OUT/san_bool.log | tail -3 | tee -a $L
left=$(( ${LIMIT:-560} - $(el) ))
CUJIT_GPU_REF_SAMPLE=4 timeout $left ctest --test-dir $B -L gpu -j6 -R "^gpu$|gpu_reference|gpu_reductions|gpu_inplace|gpu_manifest|gpu_fault" --timeout $left --output-on-failure > $OUT/ctest.log 2>&1
t "ctest exit $? ($(grep -E 'tests passed|tests failed' $OUT/ctest.log))"
grep -E "Passed|Failed|Skipped|\*\*\*" $OUT/ctest.log | tee -a $L
cd $OUT && tar -czf logs.tgz san_bool.log ctest.log && rm -f san_bool.log ctest.log

#!/usr/bin/env bash
# Call 1 (2026-11-29, ninth session): two experiments on one binary, picked by environment
# variables that exist only in this call's working tree (src/gpu/reduce_launch.cpp):
#   CUJIT_X_VFINISH=G  argmin/argmax's cj_vfinish loads G slots' vectors, then folds them
#                      (0: as on main, each slot's load behind the last one's fold)
#   CUJIT_X_LOADG=G    the rows kernel loads G of its U vectors, folds them, then the next G
#                      (U: as on main, all loads first)
# Three interleaved rounds of each variant against CUB-style ceilings, Nsight Compute of
# argmax float32 at 2^20 and 2^24 (V0 / V4) and float16 sum(x*y) at 2^22 (G4 / G1), then the
# [reduce] tests with the new code paths (V4, G2), memcheck of the small shapes.
#   DEPS=$PWD/.devdeps bash bench/results/reductions_h200/argmax_vfinish/call1.sh
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
python3 - > /tmp/am.txt <<'PY'
for dt in ("float32", "float64", "float16", "int32"):
    for k in (20, 22, 24, 26, 28):
        print(f"am:{dt}:{k}|argmax|{dt}|1|{1<<k}|1")
PY
python3 - > /tmp/f16.txt <<'PY'
for k in (20, 22, 24, 26, 28):
    print(f"dot16:{k}|dot|float16|1|{1<<k}|1")
    print(f"sum16:{k}|sum|float16|1|{1<<k}|1")
for k in (22, 24):
    print(f"sum32:{k}|sum|float32|1|{1<<k}|1")
    print(f"dot32:{k}|dot|float32|1|{1<<k}|1")
PY
cat /tmp/am.txt /tmp/f16.txt | python3 -c '
import sys
for ln in sys.stdin:
    f = ln.strip().split("|")
    print("|".join([f"ceil:{f[0]}", "read"] + f[1:]))' > /tmp/ceil.txt
run() {  # VARIANT ENV LINES
  env $2 CUJIT_CACHE_DIR=/tmp/cjt_$1 timeout 150 $B/bench/bench_reductions < $3 2>>$L | sed "s/^/$1 $r /" >> $OUT/ab.txt
}
for r in 1 2 3; do
  for v in 0 2 4; do run V$v CUJIT_X_VFINISH=$v /tmp/am.txt; done
  for g in 4 2 1; do run G$g CUJIT_X_LOADG=$g /tmp/f16.txt; done
  timeout 90 /tmp/cub < /tmp/ceil.txt | sed "s/^/ceil $r /" >> $OUT/ab.txt
  t "round $r"
done
T=bench/results/reductions_h200/f16_loads_first/ab_table.py
{ python3 $T $OUT/ab.txt V0 V2 V4; echo; python3 $T $OUT/ab.txt G4 G2 G1; } > $OUT/ab.md; cat $OUT/ab.md >> $L; t "A/B"
S1="--section SpeedOfLight --section WarpStateStats --section Occupancy --section LaunchStats --section MemoryWorkloadAnalysis --section InstructionStats"
N=$OUT/ncu.txt; echo "# Nsight Compute, H200, $(date -u +%F): ncu -k regex:cj_ --launch-skip 3 --launch-count 1 $S1" > $N
for c in "V0 CUJIT_X_VFINISH=0 am:float32:20|argmax|float32|1|1048576|1" "V4 CUJIT_X_VFINISH=4 am:float32:20|argmax|float32|1|1048576|1" \
         "V0 CUJIT_X_VFINISH=0 am:float32:24|argmax|float32|1|16777216|1" "V4 CUJIT_X_VFINISH=4 am:float32:24|argmax|float32|1|16777216|1" \
         "G4 CUJIT_X_LOADG=4 dot16:22|dot|float16|1|4194304|1" "G1 CUJIT_X_LOADG=1 dot16:22|dot|float16|1|4194304|1"; do
  set -- $c
  echo "== $1 $3" >> $N; echo "$3" | env $2 CUJIT_CACHE_DIR=/tmp/cjt_$1 timeout 60 ncu -k regex:cj_ --launch-skip 3 --launch-count 1 $S1 $B/bench/bench_reductions >> $N 2>&1; t "ncu $1 $3 exit $?"
done
export CUJIT_X_VFINISH=4 CUJIT_X_LOADG=2 CUJIT_CACHE_DIR=/tmp/cjt_test
CUJIT_TEST_REDUCE_MAX=30000 timeout 100 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/cujit_gpu_tests "[reduce]" > $OUT/san_memcheck.log 2>&1; t "memcheck [reduce] exit $?"; grep -E "ERROR SUMMARY|test cases" $OUT/san_memcheck.log | tail -2 | tee -a $L
left=$(( 570 - $(el) ))
timeout $left $B/tests/cujit_gpu_tests "[reduce]" > $OUT/tests_reduce.log 2>&1; t "[reduce] V4 G2 exit $? ($(grep -E 'test cases|assertions' $OUT/tests_reduce.log | tail -2 | tr '\n' ' '))"
grep -E "FAILED" -A10 $OUT/tests_reduce.log | head -30 >> $L
tar -czf $OUT/logs.tgz -C $OUT san_memcheck.log tests_reduce.log 2>/dev/null; rm -f $OUT/san_memcheck.log $OUT/tests_reduce.log

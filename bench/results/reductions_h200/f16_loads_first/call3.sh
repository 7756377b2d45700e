#!/usr/bin/env bash
# Call 3 (2026-11-29, after call 2): the kept change (rows and group R > 1 load first; columns load
# first for 16-bit float inputs only, LOADS_FIRST; vectors no longer than a row). A short A/B of
# HEAD's templates (old) against the working tree's (new) on one binary, memcheck and racecheck on
# the small [reduce] shapes, bench/reductions.py with every peer (tables, plots to $OUT/red), then
# [reduce] in full with the time left.
# From the repository root, with .old/ holding HEAD (git archive HEAD | tar -x -C .old):
#   DEPS=$PWD/.devdeps bash bench/results/reductions_h200/f16_loads_first/call3.sh
set -uo pipefail
D=${DEPS:-$PWD/.devdeps}
export LD_LIBRARY_PATH=$D/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} CUJIT_CACHE_DIR=/tmp/cjt
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
L=$OUT/steps.log; t() { echo "[$(el)s] $*" | tee -a $L; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u; } > $OUT/machine.txt
B=$PWD/build-dev
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$D -DCUJIT_BUILD_BENCH=ON -DCUJIT_BUILD_SAMPLES=OFF > /tmp/cmake.log 2>&1 || { tail -30 /tmp/cmake.log | tee -a $L; exit 1; }
[ -x /tmp/cub ] || (nvcc -O3 -std=c++17 -arch=native --extended-lambda -o /tmp/cub bench/reductions_cub.cu || echo "cub build failed" >> $L) &
cmake --build $B -j16 --target bench_reductions cujit_gpu_tests > /tmp/build.log 2>&1 || { grep error -A5 /tmp/build.log | head -40 | tee -a $L; exit 1; }
wait; t built
rm -rf /tmp/tv; mkdir -p /tmp/tv/old /tmp/tv/new; cp .old/templates/* /tmp/tv/old/; cp templates/* /tmp/tv/new/
python3 - > /tmp/lines.txt <<'PY'
for k in (6, 10, 18, 20, 22, 24):
    print(f"first:{k}|sum|float32|1|{1<<k}|{1<<(26-k)}")
    print(f"middle:{k}|sum|float32|4|{1<<k}|{1<<(24-k)}")
print("last:6|sum|float32|1048576|64|1")
print("f64first:20|sum|float64|1|1048576|32")
for k in (4, 10, 20, 24):
    print(f"f16first:{k}|sum|float16|1|{1<<k}|{1<<(26-k)}")
print("f16last:24|sum|float16|16777216|4|1")
for k in (24, 26, 28):
    print(f"dot16:{k}|dot|float16|1|{1<<k}|1")
PY
python3 - /tmp/lines.txt > /tmp/ceil.txt <<'PY'
import sys
for ln in open(sys.argv[1]):
    f = ln.strip().split("|")
    print("|".join([f"ceil:{f[0]}", "read" if f[3] == "1" and f[5] == "1" else "rw"] + f[1:]))
PY
for r in 1 2 3; do
  for v in old new; do
    CUJIT_TEMPLATE_DIR=/tmp/tv/$v timeout 120 $B/bench/bench_reductions < /tmp/lines.txt 2>>$L | sed "s/^/$v $r /" >> $OUT/ab.txt
  done
  timeout 60 /tmp/cub < /tmp/ceil.txt | sed "s/^/ceil $r /" >> $OUT/ab.txt
done
python3 bench/results/reductions_h200/f16_loads_first/ab_table.py $OUT/ab.txt old new > $OUT/ab.md; cat $OUT/ab.md >> $L; t "A/B"
for tool in memcheck racecheck; do
  CUJIT_TEST_REDUCE_MAX=30000 timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 $B/tests/cujit_gpu_tests "[reduce]" > $OUT/san_$tool.log 2>&1; t "$tool [reduce] exit $?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test cases" $OUT/san_$tool.log | tail -2 | tee -a $L
done
mkdir -p $OUT/red
timeout 270 python3 bench/reductions.py $B/bench/bench_reductions $OUT/red > $OUT/red/bench.log 2>&1; t "reductions.py exit $?"
left=$(( 590 - $(el) ))
timeout $left $B/tests/cujit_gpu_tests "[reduce]" > $OUT/tests_reduce.log 2>&1; t "[reduce] exit $? ($(grep -E 'test cases|assertions' $OUT/tests_reduce.log | tail -2 | tr '\n' ' '))"
grep -E "FAILED" -A10 $OUT/tests_reduce.log | head -30 >> $L

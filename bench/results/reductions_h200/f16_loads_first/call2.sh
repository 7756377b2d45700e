#!/usr/bin/env bash
# Call 2 (2026-11-29, after call 1): the group kernel's one-row path as before the change (call 1:
# loading a row's vectors first ran rows of 256 floats 0.95x as fast, and rows of 4 float16 at half
# speed), and vectors no longer than a row (float16 over (2^24, 4): 0.28 / 0.53 of the stream).
# A/B on one binary through CUJIT_TEMPLATE_DIR: old = HEAD's templates (.old/), new = the working
# tree's, c3 = new with the columns kernel bounded to 3 blocks per SM, not 4 (float16 columns spill
# 104 bytes at 4 with the loads first). Then memcheck and racecheck on the small [reduce] shapes,
# [gpu][elementwise], and [reference] on the GPU with the time left.
# From the repository root, with .old/ holding HEAD (git archive HEAD | tar -x -C .old):
#   DEPS=$PWD/.devdeps bash bench/results/reductions_h200/f16_loads_first/call2.sh
set -uo pipefail
D=${DEPS:-$PWD/.devdeps}
export LD_LIBRARY_PATH=$D/lib/x86_64-linux-gnu${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} CUJIT_CACHE_DIR=/tmp/cjt
S=$(date +%s); el() { echo $(( $(date +%s) - S )); }
L=$OUT/steps.log; t() { echo "[$(el)s] $*" | tee -a $L; }
{ nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader; date -u; } > $OUT/machine.txt
B=$PWD/build-dev
cmake -S . -B $B -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH=$D -DCUJIT_BUILD_BENCH=ON -DCUJIT_BUILD_SAMPLES=OFF > /tmp/cmake.log 2>&1 || { tail -30 /tmp/cmake.log | tee -a $L; exit 1; }
[ -x /tmp/cub ] || (nvcc -O3 -std=c++17 -arch=native --extended-lambda -o /tmp/cub bench/reductions_cub.cu || echo "cub build failed" >> $L) &
cmake --build $B -j16 --target bench_reductions jitrun cujit_gpu_tests > /tmp/build.log 2>&1 || { grep error -A5 /tmp/build.log | head -40 | tee -a $L; exit 1; }
wait; t built
rm -rf /tmp/tv; mkdir -p /tmp/tv/old /tmp/tv/new /tmp/tv/c3
cp .old/templates/* /tmp/tv/old/; cp templates/* /tmp/tv/new/; cp templates/* /tmp/tv/c3/
sed -i 's/{{MIN_BLOCKS}}/3/' /tmp/tv/c3/kernel_reduce_cols.cu
python3 - > /tmp/lines.txt <<'PY'
# ID|OP|DTYPE|OUTER|LEN|INNER
for k in range(0, 25, 2):
    print(f"first:{k}|sum|float32|1|{1<<k}|{1<<(26-k)}")
    print(f"last:{k}|sum|float32|{1<<(26-k)}|{1<<k}|1")
    if k <= 22: print(f"middle:{k}|sum|float32|4|{1<<k}|{1<<(24-k)}")
for k in (4, 10, 16, 20, 24):
    print(f"f16first:{k}|sum|float16|1|{1<<k}|{1<<(26-k)}")
    print(f"f16last:{k}|sum|float16|{1<<(26-k)}|{1<<k}|1")
print("f64first:20|sum|float64|1|1048576|32")
print("f64middle:10|sum|float64|4|1024|4096")
for k in (24, 26, 28):
    print(f"dot16:{k}|dot|float16|1|{1<<k}|1")
print("max16first:20|max|float16|1|1048576|64")
print("max16last:20|max|float16|1048576|64|1")
print("argmax16last:20|argmax|float16|1048576|64|1")
PY
python3 - /tmp/lines.txt > /tmp/ceil.txt <<'PY'
import sys
for ln in open(sys.argv[1]):
    f = ln.strip().split("|")
    whole = f[3] == "1" and f[5] == "1"
    print("|".join([f"ceil:{f[0]}", "read" if whole else "rw"] + f[1:]))
PY
for r in 1 2 3; do
  for v in old new c3; do
    CUJIT_TEMPLATE_DIR=/tmp/tv/$v timeout 120 $B/bench/bench_reductions < /tmp/lines.txt 2>>$L | sed "s/^/$v $r /" >> $OUT/ab.txt
  done
  timeout 60 /tmp/cub < /tmp/ceil.txt | sed "s/^/ceil $r /" >> $OUT/ab.txt
  t "round $r"
done
python3 bench/results/reductions_h200/f16_loads_first/ab_table.py $OUT/ab.txt old new c3 > $OUT/ab.md; cat $OUT/ab.md >> $L
for tool in memcheck racecheck; do
  CUJIT_TEST_REDUCE_MAX=30000 timeout 90 compute-sanitizer --tool $tool --error-exitcode 9 $B/tests/cujit_gpu_tests "[reduce]" > $OUT/san_$tool.log 2>&1; t "$tool [reduce] exit $?"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|test cases" $OUT/san_$tool.log | tail -2 | tee -a $L
done
timeout 120 $B/tests/cujit_gpu_tests "[gpu][elementwise]" > $OUT/tests_elementwise.log 2>&1; t "[gpu][elementwise] exit $? ($(grep -E 'test cases|assertions' $OUT/tests_elementwise.log | tail -2 | tr '\n' ' '))"
timeout 60 compute-sanitizer --tool memcheck --error-exitcode 9 $B/tests/cujit_gpu_tests "float16 NaNs keep sign*" > $OUT/san_ew.log 2>&1; t "memcheck float16 elementwise exit $?"; grep -E "ERROR SUMMARY|test cases" $OUT/san_ew.log | tail -2 | tee -a $L
left=$(( 585 - $(el) ))
timeout $left $B/tests/cujit_gpu_tests "[reference]" > $OUT/reference.log 2>&1; t "[reference] exit $? ($(grep -E 'test cases|assertions' $OUT/reference.log | tail -2 | tr '\n' ' '))"
grep -a FAILED -A10 $OUT/reference.log | head -40 >> $L
